//! Run-time layering: a loaded policy with another policy's hooks layered
//! over it, or under it, for one run, without recompiling either
//! ([`Policy::with_layer`], [`Policy::with_layer_below`];
//! `docs/src/semantics.md#replacement-and-layering`).
//!
//! The linker ([`link`], [`link_below`]) builds one program from two: the
//! lower program's layers, then the upper's above them (so at equal
//! priority the upper program's hooks run first); the upper program's
//! hooks marked `replace` take out the lower's hook of their id; every
//! other id the two share is an error, as E0104 is when the same hooks are
//! compiled together. An overlay is the upper program ([`link`]) or, placed
//! below, the lower one ([`link_below`]): the rule is the same, only the
//! roles change. The hooks are merged in the
//! one order rule (priority in the policies' direction, then layer, higher
//! first; within a program, the program's own order), and every table is
//! rebuilt with only what the kept hooks use: strings, paths and regex
//! patterns interned by value, constants, sets and actions per program,
//! each hook's code copied with every operand re-indexed through the
//! opcode table's visitor ([`Op::try_map_operands`]) and its jump targets,
//! which are absolute code positions, moved with the hook; the debug
//! section kept when both programs have one; the event index rebuilt; the
//! ids of hooks left out (the programs' absent ids and the replaced hooks)
//! merged. The result is verified like an artifact, so a layered policy is
//! exactly as trustworthy as a loaded one.
//!
//! Structs are destructured exhaustively here: a new field of
//! [`Program`], [`HookEntry`] or [`ActionEntry`] does not compile until
//! the linker handles it.

use crate::bytecode::path::Path;
use crate::bytecode::{
    AbsentHook, ActionEntry, ActionIdx, ActionParam, Binding, ConstIdx, EventIndex, HookDebug,
    HookEntry, JumpTarget, Mark, OnError, Op, Operand, OperandKindChanged, ParamValue, PathIdx,
    PatternTable, PriorityOrder, Program, RegexIdx, SetIdx, Spelled, StrIdx, TableIdx,
    TemplatePart, ValueCheck,
};
use crate::{LoadError, Policy};
use std::collections::{BTreeMap, HashMap, HashSet};
use thiserror::Error;

/// Why an overlay cannot be layered over a policy.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ComposeError {
    /// The two policies run priorities in different directions.
    #[error(
        "the policy runs priorities `{base}` and the overlay `{overlay}`: layer only policies \
         of one `priority_order` (declare the same in the overlay's sources)"
    )]
    PriorityOrder {
        /// The base policy's direction.
        base: &'static str,
        /// The overlay's.
        overlay: &'static str,
    },
    /// A hook id of the overlay is already the policy's (a hook, or one it
    /// leaves out), and the overlay's hook is not marked `replace`.
    #[error(
        "hook id `{id}` is in both the policy and the overlay: mark the overlay's hook \
         `replace: true` to replace the policy's, or rename it"
    )]
    DuplicateId {
        /// The id.
        id: String,
    },
    /// The two policies declare different decision models (`combine`, or
    /// `on_error`), neither being the default.
    #[error(
        "the two policies declare `{what}: {lower}` (the lower) and `{what}: {upper}` (the \
         upper): layer only policies that agree (or leave it out of one of them)"
    )]
    ModelClash {
        /// `combine`, `on_error` or `attribution`.
        what: &'static str,
        /// The lower program's choice.
        lower: String,
        /// The upper program's.
        upper: String,
    },
    /// A hook id of an overlay placed below the policy
    /// ([`Policy::with_layer_below`]) is already the policy's, and the
    /// policy's hook is not marked `replace` (the higher layer's hook is
    /// the one that may replace).
    #[error(
        "hook id `{id}` is in both the policy and the overlay placed below it: rename the \
         overlay's hook, or mark the policy's hook `replace: true` to replace the overlay's"
    )]
    DuplicateIdBelow {
        /// The id.
        id: String,
    },
    /// A layer name of the overlay is already a layer of the policy.
    #[error(
        "layer `{name}` is in both the policy and the overlay: compile the overlay into a layer \
         of another name (`hookc compile --layer NAME=FILE`, or `--overlay NAME=FILE`)"
    )]
    LayerClash {
        /// The layer's name.
        name: String,
    },
    /// An index of one of the programs names nothing: it was not verified.
    #[error("the {side}'s {what} is out of bounds: layer only verified programs")]
    BadIndex {
        /// `policy` or `overlay`.
        side: &'static str,
        /// What was looked up.
        what: &'static str,
    },
    /// The operand mapping changed an operand's kind (a bug in the linker).
    #[error(transparent)]
    Operand(#[from] OperandKindChanged),
    /// The layered program does not verify (a bug in the linker: please
    /// report it).
    #[error("the layered program does not load: {0}")]
    Load(#[from] LoadError),
}

impl Policy {
    /// This policy with `overlay`'s hooks layered over it: the overlay's
    /// layers above this policy's, its hooks marked `replace` replacing
    /// this policy's hooks of the same id. The result is verified like a
    /// loaded artifact. See [`link`].
    pub fn with_layer(&self, overlay: &Policy) -> Result<Policy, ComposeError> {
        let program = link(self.program(), overlay.program())?;
        Ok(Policy::from_program(program)?)
    }

    /// This policy with `overlay`'s hooks layered under it: the overlay's
    /// layers below this policy's, so at equal priority this policy's
    /// hooks run first (Meerkat appends a run's entries after the
    /// configured ones); this policy's hooks marked `replace` replace the
    /// overlay's hooks of the same id. What compiling the overlay's
    /// sources and this policy's together means, the overlay's layers
    /// first. See [`link_below`].
    pub fn with_layer_below(&self, overlay: &Policy) -> Result<Policy, ComposeError> {
        let program = link_below(self.program(), overlay.program())?;
        Ok(Policy::from_program(program)?)
    }
}

/// The two programs of a link, by position: the lower layers, then the
/// upper ones.
const LOWER: usize = 0;
const UPPER: usize = 1;

/// Links `overlay` over `base` into one program (not verified yet: see
/// [`Policy::with_layer`]). Both should be verified programs; a bad index
/// is an error, never a panic.
pub fn link(base: &Program, overlay: &Program) -> Result<Program, ComposeError> {
    check_directions(base, overlay)?;
    link_stack([base, overlay], ["policy", "overlay"], |id| {
        ComposeError::DuplicateId { id }
    })
}

/// Links `overlay` under `base` into one program: the overlay's layers
/// below the base's, the base's hooks marked `replace` replacing the
/// overlay's (not verified yet: see [`Policy::with_layer_below`]). Both
/// should be verified programs; a bad index is an error, never a panic.
pub fn link_below(base: &Program, overlay: &Program) -> Result<Program, ComposeError> {
    check_directions(base, overlay)?;
    link_stack([overlay, base], ["overlay", "policy"], |id| {
        ComposeError::DuplicateIdBelow { id }
    })
}

/// Layering needs one priority direction.
fn check_directions(base: &Program, overlay: &Program) -> Result<(), ComposeError> {
    if base.priority_order != overlay.priority_order {
        return Err(ComposeError::PriorityOrder {
            base: base.priority_order.name(),
            overlay: overlay.priority_order.name(),
        });
    }
    Ok(())
}

/// Links the programs of `stack` (lower, upper; each named by `sides` in
/// messages) into one: the upper's layers above the lower's, its hooks
/// marked `replace` taking out the lower's of their id; `duplicate` is the
/// error for an id both have that the upper does not mark.
fn link_stack(
    stack: [&Program; 2],
    sides: [&'static str; 2],
    duplicate: fn(String) -> ComposeError,
) -> Result<Program, ComposeError> {
    let [lower, upper] = stack;
    let mut l = Linker::new(stack, sides);
    let layer_offset = l.layers()?;
    let dropped = l.replacements(duplicate)?;

    // Every kept hook with its place in the one order rule.
    let mut order: Vec<(usize, usize, i64, u32)> = Vec::new();
    for (side, prog) in stack.into_iter().enumerate() {
        let offset = if side == UPPER { layer_offset } else { 0 };
        for (h, hook) in prog.hooks.iter().enumerate() {
            if side == LOWER && dropped.contains(&h) {
                continue;
            }
            order.push((side, h, hook.priority, hook.layer.saturating_add(offset)));
        }
    }
    let direction = lower.priority_order;
    // INVARIANT (evaluation order): priority in the direction, then layer
    // descending; stable, so each program keeps its own order at ties
    // (which never mix programs: their layers differ).
    order.sort_by(|a, b| {
        let by_priority = match direction {
            PriorityOrder::HigherFirst => b.2.cmp(&a.2),
            PriorityOrder::LowerFirst => a.2.cmp(&b.2),
        };
        by_priority.then(b.3.cmp(&a.3))
    });

    let keep_debug = stack.iter().all(|p| p.debug.hooks.len() == p.hooks.len());
    let events = [events_of(lower), events_of(upper)];
    let mut hook_events: Vec<(usize, Option<&[StrIdx]>)> = Vec::with_capacity(order.len());
    for &(side, h, _, layer) in &order {
        l.hook(side, h, layer, keep_debug)?;
        let listens = events
            .get(side)
            .and_then(|e| e.get(h))
            .ok_or(l.bad(side, "event index"))?;
        hook_events.push((side, listens.as_deref()));
    }
    l.events(&hook_events)?;
    l.absent(&dropped)?;
    l.model()?;
    // One encoding: the one-of section only where some regex has a set.
    if l.out.regex_one_of.iter().all(Vec::is_empty) {
        l.out.regex_one_of.clear();
    }
    Ok(l.out)
}

/// The side whose choice the layered program takes: the one that made a
/// choice other than the default, or the lower when both agree; two
/// different choices are a [`ComposeError::ModelClash`].
fn chosen<T: PartialEq + Default>(
    what: &'static str,
    [lower, upper]: [T; 2],
    name: impl Fn(T) -> String,
) -> Result<usize, ComposeError> {
    let default = T::default();
    if lower == upper || upper == default {
        Ok(LOWER)
    } else if lower == default {
        Ok(UPPER)
    } else {
        Err(ComposeError::ModelClash {
            what,
            lower: name(lower),
            upper: name(upper),
        })
    }
}

/// An error policy as a message names it.
fn on_error_name(on_error: OnError) -> String {
    match on_error {
        OnError::Skip => "skip".to_owned(),
        OnError::Fail => "fail".to_owned(),
        OnError::Action(_) => "{action: ...}".to_owned(),
    }
}

/// For each hook of `prog`, the events it names: `None` for a `"*"` hook.
fn events_of(prog: &Program) -> Vec<Option<Vec<StrIdx>>> {
    let EventIndex { named, wildcard } = &prog.events;
    let mut out: Vec<Option<Vec<StrIdx>>> = vec![Some(Vec::new()); prog.hooks.len()];
    for (name, hooks) in named {
        for &h in hooks {
            if let Some(Some(names)) = out.get_mut(h as usize) {
                names.push(*name);
            }
        }
    }
    for &h in wildcard {
        if let Some(slot) = out.get_mut(h as usize) {
            *slot = None;
        }
    }
    out
}

/// Per program: its indexes already copied into the output.
#[derive(Default)]
struct Copied {
    consts: HashMap<ConstIdx, ConstIdx>,
    tables: HashMap<TableIdx, TableIdx>,
    sets: HashMap<SetIdx, SetIdx>,
    actions: HashMap<ActionIdx, ActionIdx>,
}

/// The output program and its intern maps.
struct Linker<'a> {
    progs: [&'a Program; 2],
    /// What messages call each program (`policy`, `overlay`).
    sides: [&'static str; 2],
    out: Program,
    strings: HashMap<&'a str, StrIdx>,
    paths: HashMap<&'a Path, PathIdx>,
    regexes: HashMap<&'a str, RegexIdx>,
    copied: [Copied; 2],
}

/// A table length as a `u32` index (tables are bounded far below; a
/// saturated index is out of bounds, which verification rejects).
fn idx(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl<'a> Linker<'a> {
    fn new(progs: [&'a Program; 2], sides: [&'static str; 2]) -> Linker<'a> {
        Linker {
            progs,
            sides,
            out: Program {
                priority_order: progs[LOWER].priority_order,
                ..Program::default()
            },
            strings: HashMap::new(),
            paths: HashMap::new(),
            regexes: HashMap::new(),
            copied: [Copied::default(), Copied::default()],
        }
    }

    fn bad(&self, side: usize, what: &'static str) -> ComposeError {
        ComposeError::BadIndex {
            side: self.sides.get(side).copied().unwrap_or("?"),
            what,
        }
    }

    fn prog(&self, side: usize) -> Result<&'a Program, ComposeError> {
        self.progs
            .get(side)
            .copied()
            .ok_or(self.bad(side, "program"))
    }

    fn copied(&mut self, side: usize) -> Result<&mut Copied, ComposeError> {
        let bad = self.bad(side, "program");
        self.copied.get_mut(side).ok_or(bad)
    }

    // ---- tables -----------------------------------------------------------

    fn string(&mut self, side: usize, i: StrIdx) -> Result<StrIdx, ComposeError> {
        let text = self
            .prog(side)?
            .get_string(i)
            .ok_or(self.bad(side, "string"))?;
        Ok(*self.strings.entry(text).or_insert_with(|| {
            self.out.strings.push(text);
            StrIdx::from_usize(self.out.strings.len() - 1)
        }))
    }

    fn path(&mut self, side: usize, i: PathIdx) -> Result<PathIdx, ComposeError> {
        let path = self.prog(side)?.path(i).ok_or(self.bad(side, "path"))?;
        Ok(*self.paths.entry(path).or_insert_with(|| {
            self.out.paths.push(path.clone());
            PathIdx::from_usize(self.out.paths.len() - 1)
        }))
    }

    /// Regex `i` of `side`, with its required literals and one-of set: the
    /// ones the side recorded (a side that records literals but no one-of
    /// section has no set), or (a side from an older artifact, which
    /// records neither) found by parsing it now, so that the layered
    /// program records them for every regex.
    fn regex(&mut self, side: usize, i: RegexIdx) -> Result<RegexIdx, ComposeError> {
        let prog = self.prog(side)?;
        let pattern = prog.regex(i).ok_or(self.bad(side, "regex"))?;
        if let Some(&k) = self.regexes.get(pattern) {
            return Ok(k);
        }
        let (literals, one_of) = match prog.regex_literals.get(i.as_usize()) {
            Some(recorded) => (
                recorded.clone(),
                prog.regex_one_of
                    .get(i.as_usize())
                    .cloned()
                    .unwrap_or_default(),
            ),
            None => (
                crate::value::policy_regex::required_literals(pattern),
                crate::value::policy_regex::one_of_literals_in(pattern),
            ),
        };
        let k = RegexIdx::from_usize(self.out.regexes.len());
        self.out.regexes.push(pattern.to_owned());
        self.out.regex_literals.push(literals);
        self.out.regex_one_of.push(one_of);
        self.regexes.insert(pattern, k);
        Ok(k)
    }

    fn konst(&mut self, side: usize, i: ConstIdx) -> Result<ConstIdx, ComposeError> {
        if let Some(&k) = self.copied(side)?.consts.get(&i) {
            return Ok(k);
        }
        let value = self
            .prog(side)?
            .konst(i)
            .ok_or(self.bad(side, "constant"))?;
        let k = ConstIdx::from_usize(self.out.consts.len());
        self.out.consts.push(value.clone());
        self.copied(side)?.consts.insert(i, k);
        Ok(k)
    }

    fn set(&mut self, side: usize, i: SetIdx) -> Result<SetIdx, ComposeError> {
        if let Some(&s) = self.copied(side)?.sets.get(&i) {
            return Ok(s);
        }
        let konst = self.prog(side)?.set(i).ok_or(self.bad(side, "set"))?;
        let konst = self.konst(side, konst)?;
        let s = SetIdx::from_usize(self.out.sets.len());
        self.out.sets.push(konst);
        self.copied(side)?.sets.insert(i, s);
        Ok(s)
    }

    /// A pattern table, copied once per side with its path, patterns and
    /// rows.
    fn table(&mut self, side: usize, i: TableIdx) -> Result<TableIdx, ComposeError> {
        if let Some(&t) = self.copied(side)?.tables.get(&i) {
            return Ok(t);
        }
        let table = self
            .prog(side)?
            .table(i)
            .ok_or(self.bad(side, "pattern table"))?;
        let copy = PatternTable {
            on: self.path(side, table.on)?,
            patterns: table
                .patterns
                .iter()
                .map(|&r| self.regex(side, r))
                .collect::<Result<_, _>>()?,
            rows: self.konst(side, table.rows)?,
        };
        let t = TableIdx::from_usize(self.out.tables.len());
        self.out.tables.push(copy);
        self.copied(side)?.tables.insert(i, t);
        Ok(t)
    }

    /// The decision model of the layered program (see [`chosen`]); an
    /// error policy's action is copied like a hook's.
    fn model(&mut self) -> Result<(), ComposeError> {
        let [lower, upper] = self.progs;
        let combine = [lower.model.combine, upper.model.combine];
        let side = chosen("combine", combine, |c| c.name().to_owned())?;
        self.out.model.combine = self.prog(side)?.model.combine;
        let attribution = [lower.attribution, upper.attribution];
        let side = chosen("attribution", attribution, |a| a.name().to_owned())?;
        self.out.attribution = self.prog(side)?.attribution;
        // Either program's variables are read, and its members hashed.
        self.out.reads_environment = lower.reads_environment || upper.reads_environment;
        for side in [LOWER, UPPER] {
            for &i in &self.prog(side)?.sensitive {
                let path = self.path(side, i)?;
                if !self.out.sensitive.contains(&path) {
                    self.out.sensitive.push(path);
                }
            }
        }
        let on_error = [lower.model.on_error, upper.model.on_error];
        let side = match on_error {
            // Two error actions are two choices, however alike they read.
            [OnError::Action(_), OnError::Action(_)] => {
                return Err(ComposeError::ModelClash {
                    what: "on_error",
                    lower: on_error_name(on_error[LOWER]),
                    upper: on_error_name(on_error[UPPER]),
                })
            }
            _ => chosen("on_error", on_error, on_error_name)?,
        };
        self.out.model.on_error = match self.prog(side)?.model.on_error {
            OnError::Action(a) => OnError::Action(self.action(side, a)?),
            other => other,
        };
        Ok(())
    }

    fn action(&mut self, side: usize, i: ActionIdx) -> Result<ActionIdx, ComposeError> {
        if let Some(&a) = self.copied(side)?.actions.get(&i) {
            return Ok(a);
        }
        let ActionEntry {
            kind,
            effect,
            severity,
            bind,
            params,
        } = self.prog(side)?.action(i).ok_or(self.bad(side, "action"))?;
        let entry = ActionEntry {
            kind: self.string(side, *kind)?,
            effect: *effect,
            severity: *severity,
            bind: match bind {
                None => None,
                Some(Binding::Path(p)) => Some(Binding::Path(self.path(side, *p)?)),
                Some(Binding::Parameter(s)) => Some(Binding::Parameter(self.string(side, *s)?)),
            },
            params: params
                .iter()
                .map(|ActionParam { name, value, check }| {
                    Ok(ActionParam {
                        name: self.string(side, *name)?,
                        value: self.param(side, value)?,
                        check: check.as_ref().map(|c| self.check(side, c)).transpose()?,
                    })
                })
                .collect::<Result<_, ComposeError>>()?,
        };
        let a = ActionIdx::from_usize(self.out.actions.len());
        self.out.actions.push(entry);
        self.copied(side)?.actions.insert(i, a);
        Ok(a)
    }

    /// A parameter's check: its enum constant is copied like any constant.
    /// Recursion is bounded by the check's nesting, which decoding bounds.
    fn check(&mut self, side: usize, check: &ValueCheck) -> Result<ValueCheck, ComposeError> {
        let ValueCheck {
            kinds,
            allowed,
            items,
        } = check;
        Ok(ValueCheck {
            kinds: *kinds,
            allowed: allowed.map(|k| self.konst(side, k)).transpose()?,
            items: items
                .as_deref()
                .map(|i| self.check(side, i).map(Box::new))
                .transpose()?,
        })
    }

    /// A parameter value. Recursion is bounded by the value's nesting,
    /// which verification bounds ([`crate::limits::MAX_VALUE_DEPTH`]).
    fn param(&mut self, side: usize, value: &ParamValue) -> Result<ParamValue, ComposeError> {
        Ok(match value {
            ParamValue::Const(k) => ParamValue::Const(self.konst(side, *k)?),
            ParamValue::Template(parts) => ParamValue::Template(
                parts
                    .iter()
                    .map(|part| {
                        Ok(match part {
                            TemplatePart::Lit(s) => TemplatePart::Lit(self.string(side, *s)?),
                            TemplatePart::Path(p) => TemplatePart::Path(self.path(side, *p)?),
                            TemplatePart::Expr { code, max_stack } => TemplatePart::Expr {
                                code: self.template_code(side, *code)?,
                                max_stack: *max_stack,
                            },
                        })
                    })
                    .collect::<Result<_, ComposeError>>()?,
            ),
            ParamValue::List(items) => ParamValue::List(
                items
                    .iter()
                    .map(|item| self.param(side, item))
                    .collect::<Result<_, _>>()?,
            ),
            ParamValue::Object(entries) => ParamValue::Object(
                entries
                    .iter()
                    .map(|(key, item)| Ok((self.string(side, *key)?, self.param(side, item)?)))
                    .collect::<Result<_, ComposeError>>()?,
            ),
        })
    }

    // ---- layers and ids ---------------------------------------------------

    /// The lower program's layers, then the upper's; returns the upper's
    /// layer offset.
    fn layers(&mut self) -> Result<u32, ComposeError> {
        let mut seen: HashSet<&str> = HashSet::new();
        for side in [LOWER, UPPER] {
            for &name in &self.prog(side)?.layers {
                let text = self
                    .prog(side)?
                    .get_string(name)
                    .ok_or(self.bad(side, "layer"))?;
                if !seen.insert(text) {
                    return Err(ComposeError::LayerClash {
                        name: text.to_owned(),
                    });
                }
                let name = self.string(side, name)?;
                self.out.layers.push(name);
            }
        }
        Ok(idx(self.prog(LOWER)?.layers.len()))
    }

    /// The lower program's hooks the upper one replaces (by index); an id
    /// both have that the upper does not mark `replace` is `duplicate`.
    fn replacements(
        &self,
        duplicate: fn(String) -> ComposeError,
    ) -> Result<HashSet<usize>, ComposeError> {
        let (lower, upper) = (self.prog(LOWER)?, self.prog(UPPER)?);
        let mut hooks: HashMap<&str, usize> = HashMap::new();
        for (h, hook) in lower.hooks.iter().enumerate() {
            hooks.insert(lower.string(hook.id), h);
        }
        let absent: HashSet<&str> = lower.absent.iter().map(|a| lower.string(a.id)).collect();
        let marked = upper
            .hooks
            .iter()
            .map(|h| (h.id, h.replace))
            .chain(upper.absent.iter().map(|a| (a.id, a.replace)));
        let mut dropped = HashSet::new();
        for (id, replace) in marked {
            let id = upper.get_string(id).ok_or(self.bad(UPPER, "hook id"))?;
            let known = hooks.get(id);
            if !replace && (known.is_some() || absent.contains(id)) {
                return Err(duplicate(id.to_owned()));
            }
            dropped.extend(known);
        }
        Ok(dropped)
    }

    /// The absent ids: the lower program's, the replaced hooks', the
    /// upper's, once each (a `replace` mark kept), none an id of a kept
    /// hook.
    fn absent(&mut self, dropped: &HashSet<usize>) -> Result<(), ComposeError> {
        let (lower, upper) = (self.prog(LOWER)?, self.prog(UPPER)?);
        let mut candidates: Vec<(usize, AbsentHook)> = Vec::new();
        candidates.extend(lower.absent.iter().map(|a| (LOWER, *a)));
        let mut replaced: Vec<usize> = dropped.iter().copied().collect();
        replaced.sort_unstable();
        for h in replaced {
            let HookEntry { id, replace, .. } =
                lower.hooks.get(h).ok_or(self.bad(LOWER, "hook"))?;
            candidates.push((
                LOWER,
                AbsentHook {
                    id: *id,
                    replace: *replace,
                },
            ));
        }
        candidates.extend(upper.absent.iter().map(|a| (UPPER, *a)));
        let present: HashSet<String> = (self.out.hooks.iter())
            .map(|h| self.out.string(h.id).to_owned())
            .collect();
        let mut at: HashMap<StrIdx, usize> = HashMap::new();
        for (side, AbsentHook { id, replace }) in candidates {
            let id = self.string(side, id)?;
            if present.contains(self.out.string(id)) {
                continue;
            }
            match at.get(&id).and_then(|&i| self.out.absent.get_mut(i)) {
                Some(entry) => entry.replace |= replace,
                None => {
                    at.insert(id, self.out.absent.len());
                    self.out.absent.push(AbsentHook { id, replace });
                }
            }
        }
        Ok(())
    }

    // ---- hooks ------------------------------------------------------------

    /// Copies hook `h` of `side` (in `layer` of the output) with its code,
    /// action and debug entry.
    fn hook(&mut self, side: usize, h: usize, layer: u32, debug: bool) -> Result<(), ComposeError> {
        let prog = self.prog(side)?;
        let HookEntry {
            id,
            priority,
            layer: _,
            description,
            code: (start, end),
            max_stack,
            action,
            replace,
        } = prog.hooks.get(h).ok_or(self.bad(side, "hook"))?;
        let ops = prog
            .code
            .get(*start as usize..*end as usize)
            .ok_or(self.bad(side, "code range"))?;
        let new_start = idx(self.out.code.len());
        for op in ops {
            let op = self.op(side, op, *start, new_start)?;
            self.out.code.push(op);
        }
        let entry = HookEntry {
            id: self.string(side, *id)?,
            priority: *priority,
            layer,
            description: description.map(|d| self.string(side, d)).transpose()?,
            code: (new_start, idx(self.out.code.len())),
            max_stack: *max_stack,
            action: self.action(side, *action)?,
            replace: *replace,
        };
        self.out.hooks.push(entry);
        if debug {
            let HookDebug { at, marks } = prog
                .debug
                .hooks
                .get(h)
                .ok_or(self.bad(side, "debug entry"))?;
            let entry = HookDebug {
                at: self.string(side, *at)?,
                marks: marks
                    .iter()
                    .map(|Mark { op, text, at }| {
                        Ok(Mark {
                            op: moved(*op, *start, new_start)
                                .ok_or(self.bad(side, "sub-condition"))?,
                            text: self.string(side, *text)?,
                            at: self.string(side, *at)?,
                        })
                    })
                    .collect::<Result<_, ComposeError>>()?,
            };
            self.out.debug.hooks.push(entry);
        }
        Ok(())
    }

    /// The code of a template expression, copied to the end of the output's
    /// code (after the hook being copied, whose action it belongs to, so
    /// hook code ranges stay in order); its new range.
    fn template_code(
        &mut self,
        side: usize,
        (start, end): (u32, u32),
    ) -> Result<(u32, u32), ComposeError> {
        let ops = self
            .prog(side)?
            .code
            .get(start as usize..end as usize)
            .ok_or(self.bad(side, "template code range"))?;
        let new_start = idx(self.out.code.len());
        for op in ops {
            let op = self.op(side, op, start, new_start)?;
            self.out.code.push(op);
        }
        Ok((new_start, idx(self.out.code.len())))
    }

    /// One instruction of a hook whose code moves from `old` to `new`.
    fn op(&mut self, side: usize, op: &Op, old: u32, new: u32) -> Result<Op, ComposeError> {
        op.try_map_operands(|operand| {
            Ok(match operand {
                Operand::Str(i) => Operand::Str(self.string(side, i)?),
                Operand::Path(i) => Operand::Path(self.path(side, i)?),
                Operand::Const(i) => Operand::Const(self.konst(side, i)?),
                Operand::Set(i) => Operand::Set(self.set(side, i)?),
                Operand::Table(i) => Operand::Table(self.table(side, i)?),
                Operand::Regex(i) => Operand::Regex(self.regex(side, i)?),
                Operand::Jump(t) => Operand::Jump(self.target(side, t, old, new)?),
                Operand::Exit(t) => Operand::Exit(self.target(side, t, old, new)?),
                Operand::Depth(_)
                | Operand::Count(_)
                | Operand::Cmp(_)
                | Operand::Macro(_)
                | Operand::Kinds(_)
                | Operand::Func(_)
                | Operand::Slot(_) => operand,
            })
        })
    }

    /// A jump target (an absolute code position) moved with its hook.
    fn target(
        &self,
        side: usize,
        t: JumpTarget,
        old: u32,
        new: u32,
    ) -> Result<JumpTarget, ComposeError> {
        moved(t.as_u32(), old, new)
            .map(JumpTarget::new)
            .ok_or(self.bad(side, "jump target"))
    }

    /// The event index of the output, from each output hook's program
    /// and events (`None`: `"*"`), as the lowering builds it: names sorted
    /// by their text, the `"*"` hooks merged into every list.
    fn events(&mut self, hooks: &[(usize, Option<&[StrIdx]>)]) -> Result<(), ComposeError> {
        let mut wildcard: Vec<u32> = Vec::new();
        // By text: `(side, name, own hooks)`.
        let mut named: BTreeMap<&'a str, (usize, StrIdx, Vec<u32>)> = BTreeMap::new();
        for (k, &(side, names)) in hooks.iter().enumerate() {
            let k = idx(k);
            let Some(names) = names else {
                wildcard.push(k);
                continue;
            };
            for &name in names {
                let text = self
                    .prog(side)?
                    .get_string(name)
                    .ok_or(self.bad(side, "event name"))?;
                let (_, _, own) = named.entry(text).or_insert((side, name, Vec::new()));
                if own.last() != Some(&k) {
                    own.push(k);
                }
            }
        }
        let mut index = Vec::with_capacity(named.len());
        for (_, (side, name, own)) in named {
            let mut list: Vec<u32> = own.into_iter().chain(wildcard.iter().copied()).collect();
            list.sort_unstable();
            list.dedup();
            index.push((self.string(side, name)?, list));
        }
        self.out.events = EventIndex {
            named: index,
            wildcard,
        };
        Ok(())
    }
}

/// Position `at` of code that moves from `old` to `new`.
fn moved(at: u32, old: u32, new: u32) -> Option<u32> {
    at.checked_sub(old)?.checked_add(new)
}

#[cfg(test)]
mod tests;
