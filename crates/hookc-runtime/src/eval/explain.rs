//! Explained evaluations: every hook of an event in evaluation order, what
//! happened to it, and (from the artifact's debug section) the
//! sub-conditions that ran with the context values they read.

use super::{Overrides, Policy};
use crate::bytecode::{Effect, HookDebug, Op, Operand, PathIdx, Spelled};
use crate::context::PathCache;
use crate::eval::vm::{self, ErrorSite};
use crate::value::{EvalError, Val};
use serde_json::{Map, Value};

/// What happened to one hook of an event in an explained evaluation.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Its condition was `true` (or it has none).
    Matched,
    /// Its condition was `false`.
    NotMatched,
    /// Its condition ended in an error value: it does not match.
    Error {
        /// The error.
        error: EvalError,
        /// What the failing instruction was doing, e.g. "reading `error.headers`".
        at: Option<String>,
    },
    /// Its condition gave a value that is not a bool: it does not match.
    NotBool(Value),
    /// Switched off by the call's [`Overrides`].
    Disabled,
}

/// One hook's line in a [`Trace`].
#[derive(Debug, Clone, PartialEq)]
pub struct HookTrace {
    /// The hook's id.
    pub hook: String,
    /// Its priority.
    pub priority: i64,
    /// Whether its action is collected or terminal.
    pub effect: Effect,
    /// Its description, if any.
    pub description: Option<String>,
    /// Where it is in the sources (`file:line:col`), when the policy kept
    /// debug information (policies compiled from sources, and artifacts not
    /// written with `--strip`).
    pub at: Option<String>,
    /// What happened.
    pub outcome: Outcome,
    /// With debug information: its sub-conditions in the order they ran
    /// (short-circuiting skips some). The last one decided the outcome.
    pub evaluated: Vec<SubCondition>,
    /// Without debug information: every context path its condition reads,
    /// with the value found.
    pub reads: Vec<Read>,
    /// For a hook with a pattern table
    /// (`docs/src/semantics.md#pattern-tables`), the first row (from 0)
    /// whose pattern matched; `None` when no row did, or the hook has no
    /// table.
    pub row: Option<usize>,
}

/// A sub-condition that ran in an explained hook: an operand of `&&`, `||`,
/// `!` or `?:` that is none of those itself.
#[derive(Debug, Clone, PartialEq)]
pub struct SubCondition {
    /// Its canonical `when` text.
    pub condition: String,
    /// Where it is in the sources, `file:line:col`.
    pub at: String,
    /// Its value; an error value is `Err`.
    pub result: Result<Value, EvalError>,
    /// The context paths it reads, with the values found.
    pub reads: Vec<Read>,
}

/// A context path a condition reads, and what the context holds there.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// The path, as written in policies.
    pub path: String,
    /// The value found; `None` when the path does not resolve.
    pub value: Option<Value>,
}

/// A value a function derived once for the whole evaluation (the parse of
/// a shell command string), and what from.
#[derive(Debug, Clone, PartialEq)]
pub struct Derivation {
    /// The function, as written (`shell.commands`).
    pub function: String,
    /// Its input.
    pub input: String,
    /// What it derived (`shell.commands`: `{"commands": [...], "error":
    /// null | "why"}`).
    pub value: Value,
}

impl Derivation {
    /// Every derivation of a scratch not yet in `into`, in order.
    pub(super) fn collect(scratch: &crate::functions::Scratch<'_>, into: &mut Vec<Derivation>) {
        for (f, input, value) in scratch.derivations() {
            let function = f.def().qualified_name();
            if !into
                .iter()
                .any(|d| d.function == function && d.input == input)
            {
                into.push(Derivation {
                    function,
                    input: input.to_owned(),
                    value: value.to_json(),
                });
            }
        }
    }
}

/// Every hook of an event, in evaluation order, with what happened to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The event.
    pub event: String,
    /// The hooks of the event, in evaluation order (all of them are evaluated).
    pub hooks: Vec<HookTrace>,
    /// Position in `hooks` of the first match of a terminal action: the
    /// decision.
    pub winner: Option<usize>,
    /// Positions in `hooks` of the matches of collected actions before the
    /// winner (all of them when nothing decided): the decision's collected
    /// actions.
    pub collected: Vec<usize>,
    /// The policy's other hooks, skipped because they listen to other
    /// events (counted, not listed).
    pub other_events: usize,
    /// What the decision model did beyond first match (empty for a
    /// first-match policy).
    pub model: ModelTrace,
    /// What functions derived for the whole evaluation, each once however
    /// many hooks read it (`docs/src/semantics.md#explain-traces`): the
    /// parsed shell commands.
    pub derived: Vec<Derivation>,
}

/// The decision model's part of a [`Trace`]
/// (`docs/src/semantics.md#explain-traces`): positions in [`Trace::hooks`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelTrace {
    /// The transform matches applied, in order: hooks after each read the
    /// patched context.
    pub transforms: Vec<usize>,
    /// The awaited matches whose result was given and bound, in order.
    pub resumed: Vec<usize>,
    /// The awaited match that suspended the evaluation, if any.
    pub pending: Option<usize>,
    /// Hooks that could not decide (a condition error under an error
    /// policy other than `skip`, an action that does not fit), with why.
    pub failures: Vec<(usize, String)>,
    /// The failure that failed the evaluation (`on_error: fail`, or under
    /// strictest combining a terminal action that cannot be filled and
    /// would decide): the decision is that error, not a result; the
    /// hooks are listed as they evaluate, deciding nothing.
    pub failed: Option<usize>,
    /// Why the winner won, when that is more than "first terminal match"
    /// (strictest combining, an error policy's action).
    pub reason: Option<String>,
}

impl ModelTrace {
    fn is_empty(&self) -> bool {
        *self == ModelTrace::default()
    }
}

impl Policy {
    pub(super) fn trace<'p: 'c, 'c>(
        &'p self,
        event: &str,
        cache: &mut PathCache<'c>,
        overrides: &Overrides,
    ) -> Trace {
        let p = self.program.program();
        let mut hooks = Vec::new();
        let mut winner = None;
        let mut collected = Vec::new();
        for &h in p.hooks_for(event) {
            let Some(line) = self.trace_hook(h, cache, overrides) else {
                continue;
            };
            if line.outcome == Outcome::Matched && winner.is_none() {
                match line.effect {
                    Effect::Collected => collected.push(hooks.len()),
                    // A policy with transforms or awaits is explained by
                    // the decision model's walk, never here.
                    Effect::Terminal | Effect::Transform | Effect::Await => {
                        winner = Some(hooks.len())
                    }
                }
            }
            hooks.push(line);
        }
        let mut derived = Vec::new();
        Derivation::collect(cache.scratch(), &mut derived);
        Trace {
            event: event.to_owned(),
            other_events: p.hooks.len().saturating_sub(hooks.len()),
            hooks,
            winner,
            collected,
            model: ModelTrace::default(),
            derived,
        }
    }

    /// Hook `h`'s line of a trace: its condition evaluated on `cache`
    /// (unless `overrides` switch it off), with what it read.
    pub(super) fn trace_hook<'p: 'c, 'c>(
        &'p self,
        h: u32,
        cache: &mut PathCache<'c>,
        overrides: &Overrides,
    ) -> Option<HookTrace> {
        let p = self.program.program();
        let entry = p.hooks.get(h as usize)?;
        let debug = p.debug.hooks.get(h as usize);
        let mut site = ErrorSite {
            watch: debug.map_or_else(Vec::new, |d| d.marks.iter().map(|m| m.op).collect()),
            ..ErrorSite::default()
        };
        let outcome = if overrides.is_disabled(h) {
            Outcome::Disabled
        } else {
            match vm::eval_hook(&self.program, h, cache, Some(&mut site)) {
                Val::Bool(true) => Outcome::Matched,
                Val::Bool(false) => Outcome::NotMatched,
                Val::Error(error) => Outcome::Error {
                    error,
                    at: site.op.and_then(|op| self.describe_op(op)),
                },
                other => Outcome::NotBool(other.to_json().unwrap_or(Value::Null)),
            }
        };
        let effect = p
            .action(entry.action)
            .map_or(Effect::Terminal, |a| a.effect);
        let (evaluated, reads) = match debug {
            Some(d) => (self.steps(entry.code.0, d, site.values, cache), Vec::new()),
            None if outcome != Outcome::Disabled => {
                (Vec::new(), self.reads(entry.code.0, entry.code.1, cache))
            }
            None => (Vec::new(), Vec::new()),
        };
        let row = match outcome {
            Outcome::Disabled => None,
            _ => self.table_row(entry.code, cache),
        };
        Some(HookTrace {
            row,
            hook: p.string(entry.id).to_owned(),
            priority: entry.priority,
            effect,
            description: entry.description.map(|d| p.string(d).to_owned()),
            at: debug.map(|d| p.string(d.at).to_owned()),
            outcome,
            evaluated,
            reads,
        })
    }

    /// The row of the pattern table a hook's code tests (`Op::Row`) that
    /// matches the string at its path, if any.
    fn table_row(&self, (start, end): (u32, u32), cache: &mut PathCache<'_>) -> Option<usize> {
        let p = self.program.program();
        let code = p.code.get(start as usize..end as usize)?;
        let t = code.iter().find_map(|op| match op {
            Op::Row(t) => Some(*t),
            _ => None,
        })?;
        let table = p.table(t)?;
        let text = cache.get(table.on)?.as_str()?;
        self.program.first_row(t, text).ok().flatten()
    }

    /// The sub-conditions that ran, from the values the VM recorded at their
    /// marks. A sub-condition's code is what follows the previous mark (or
    /// the hook's start) up to its own: the paths read there are its reads.
    fn steps(
        &self,
        start: u32,
        debug: &HookDebug,
        values: Vec<(u32, Result<Value, EvalError>)>,
        cache: &mut PathCache<'_>,
    ) -> Vec<SubCondition> {
        let p = self.program.program();
        values
            .into_iter()
            .filter_map(|(op, result)| {
                let k = debug.marks.binary_search_by_key(&op, |m| m.op).ok()?;
                let mark = debug.marks.get(k)?;
                let from = match k.checked_sub(1) {
                    Some(prev) => debug.marks.get(prev)?.op.saturating_add(1),
                    None => start,
                };
                Some(SubCondition {
                    condition: p.string(mark.text).to_owned(),
                    at: p.string(mark.at).to_owned(),
                    result,
                    reads: self.reads(from, op.saturating_add(1), cache),
                })
            })
            .collect()
    }

    /// The context paths read by the code in `[from, to)`, each once, with
    /// their values.
    fn reads(&self, from: u32, to: u32, cache: &mut PathCache<'_>) -> Vec<Read> {
        let p = self.program.program();
        let code = p.code.get(from as usize..to as usize).unwrap_or_default();
        let mut seen: Vec<PathIdx> = Vec::new();
        for op in code {
            op.for_each_operand(|operand| match operand {
                Operand::Path(i) => {
                    if !seen.contains(&i) {
                        seen.push(i);
                    }
                }
                Operand::Table(t) => {
                    if let Some(table) = p.table(t) {
                        if !seen.contains(&table.on) {
                            seen.push(table.on);
                        }
                    }
                }
                Operand::Str(_)
                | Operand::Const(_)
                | Operand::Set(_)
                | Operand::Regex(_)
                | Operand::Jump(_)
                | Operand::Exit(_)
                | Operand::Depth(_)
                | Operand::Count(_)
                | Operand::Cmp(_)
                | Operand::Macro(_)
                | Operand::Kinds(_)
                | Operand::Func(_)
                | Operand::Slot(_) => {}
            });
        }
        seen.into_iter()
            .filter_map(|i| {
                Some(Read {
                    path: p.path(i)?.to_string(),
                    value: cache.get(i).cloned(),
                })
            })
            .collect()
    }

    /// What an instruction was doing, for explain output: reading the path
    /// or selecting the field its operands name, else what kind of
    /// instruction it is.
    fn describe_op(&self, op: u32) -> Option<String> {
        let p = self.program.program();
        let op = p.code.get(op as usize)?;
        let mut doing = None;
        op.for_each_operand(|operand| match operand {
            Operand::Path(i) => {
                doing = p.path(i).map(|path| format!("reading `{path}`"));
            }
            Operand::Str(s) => doing = Some(format!("selecting `{}`", p.string(s))),
            Operand::Func(f) => {
                doing = crate::functions::Builtin::of(f)
                    .map(|f| format!("calling `{}`", f.def().qualified_name()));
            }
            Operand::Table(t) => {
                doing = p
                    .table(t)
                    .and_then(|table| p.path(table.on))
                    .map(|path| format!("matching the pattern table on `{path}`"));
            }
            Operand::Const(_)
            | Operand::Set(_)
            | Operand::Regex(_)
            | Operand::Jump(_)
            | Operand::Exit(_)
            | Operand::Depth(_)
            | Operand::Count(_)
            | Operand::Cmp(_)
            | Operand::Macro(_)
            | Operand::Kinds(_)
            | Operand::Slot(_) => {}
        });
        if doing.is_some() {
            return doing;
        }
        Some(match op {
            Op::Index => "indexing".to_owned(),
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Rem | Op::Neg => "in arithmetic".to_owned(),
            Op::Cmp(_) => "comparing".to_owned(),
            Op::MacroStart { .. } | Op::MacroNext => "in a list macro".to_owned(),
            // Any other instruction is named as it is: a description, not a
            // check, so a new opcode needs no entry here.
            other => format!("at `{other:?}`"),
        })
    }
}

impl Trace {
    /// The trace as JSON: `{"event", "hooks": [{"hook", "priority",
    /// "outcome", ...}], "winner"}`, with `"effect": "collected"` on
    /// collected hooks and a `"collected"` list of ids when any matched
    /// before the decision (both left out otherwise, so a policy without
    /// collected actions gives the trace it always gave).
    pub fn to_json(&self) -> Value {
        let hooks: Vec<Value> = self
            .hooks
            .iter()
            .map(|h| {
                let mut m = Map::new();
                m.insert("hook".into(), h.hook.clone().into());
                m.insert("priority".into(), h.priority.into());
                if h.effect != Effect::Terminal {
                    m.insert("effect".into(), h.effect.name().into());
                }
                let (outcome, detail) = match &h.outcome {
                    Outcome::Matched => ("matched", None),
                    Outcome::NotMatched => ("not_matched", None),
                    Outcome::Error { error, at } => (
                        "error",
                        Some(match at {
                            Some(at) => format!("{error} {at}"),
                            None => error.to_string(),
                        }),
                    ),
                    Outcome::NotBool(v) => {
                        ("not_bool", Some(format!("condition gave {v}, not a bool")))
                    }
                    Outcome::Disabled => ("disabled", None),
                };
                m.insert("outcome".into(), outcome.into());
                if let Some(d) = detail {
                    m.insert("why".into(), d.into());
                }
                if let Some(d) = &h.description {
                    m.insert("description".into(), d.clone().into());
                }
                if let Some(at) = &h.at {
                    m.insert("at".into(), at.clone().into());
                }
                if !h.evaluated.is_empty() {
                    let evaluated = h.evaluated.iter().map(SubCondition::to_json).collect();
                    m.insert("evaluated".into(), Value::Array(evaluated));
                    m.insert("decided_by".into(), (h.evaluated.len() - 1).into());
                }
                if !h.reads.is_empty() {
                    m.insert("reads".into(), reads_json(&h.reads));
                }
                if let Some(row) = h.row {
                    m.insert("row".into(), row.into());
                }
                Value::Object(m)
            })
            .collect();
        let mut m = Map::new();
        m.insert("event".into(), self.event.clone().into());
        m.insert("hooks".into(), Value::Array(hooks));
        m.insert("other_events".into(), self.other_events.into());
        m.insert(
            "winner".into(),
            self.winner
                .and_then(|w| self.hooks.get(w))
                .map_or(Value::Null, |h| h.hook.clone().into()),
        );
        if !self.collected.is_empty() {
            m.insert("collected".into(), self.collected_ids().into());
        }
        if !self.derived.is_empty() {
            let derived = self
                .derived
                .iter()
                .map(|d| {
                    let mut o = Map::new();
                    o.insert("function".into(), d.function.clone().into());
                    o.insert("input".into(), d.input.clone().into());
                    o.insert("value".into(), d.value.clone());
                    Value::Object(o)
                })
                .collect();
            m.insert("derived".into(), Value::Array(derived));
        }
        if !self.model.is_empty() {
            let ids = |positions: &[usize]| -> Value { self.ids(positions).into() };
            let model = &self.model;
            if !model.transforms.is_empty() {
                m.insert("transforms".into(), ids(&model.transforms));
            }
            if !model.resumed.is_empty() {
                m.insert("resumed".into(), ids(&model.resumed));
            }
            if let Some(p) = model.pending {
                let pending = self.hooks.get(p).map(|h| h.hook.clone());
                m.insert("pending".into(), pending.into());
            }
            if !model.failures.is_empty() {
                let failures = model
                    .failures
                    .iter()
                    .filter_map(|(i, why)| {
                        let h = self.hooks.get(*i)?;
                        let mut f = Map::new();
                        f.insert("hook".into(), h.hook.clone().into());
                        f.insert("cause".into(), why.clone().into());
                        Some(Value::Object(f))
                    })
                    .collect();
                m.insert("failures".into(), Value::Array(failures));
            }
            if let Some(reason) = &model.reason {
                m.insert("reason".into(), reason.clone().into());
            }
            if let Some(h) = model.failed.and_then(|p| self.hooks.get(p)) {
                m.insert("failed".into(), h.hook.clone().into());
            }
        }
        Value::Object(m)
    }

    /// The trace for people: one line per hook, then the result.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "event `{}`: {} hook(s); {} skipped (other events)\n",
            self.event,
            self.hooks.len(),
            self.other_events
        );
        let failed = self
            .model
            .failed
            .and_then(|p| Some((p, &self.hooks.get(p)?.hook)));
        for (i, h) in self.hooks.iter().enumerate() {
            let what = match &h.outcome {
                Outcome::Matched if failed.is_some_and(|(p, _)| i < p) => format!(
                    "matched (but the evaluation fails at `{}`: nothing decides)",
                    failed.map_or("", |(_, id)| id.as_str())
                ),
                Outcome::Matched if failed.is_some() => {
                    "matched (after the evaluation failed: decides nothing)".to_owned()
                }
                Outcome::Matched if Some(i) == self.winner && self.collected.is_empty() => {
                    "matched (first match: this action is returned)".to_owned()
                }
                Outcome::Matched if Some(i) == self.winner => {
                    "matched (terminal: this action decides)".to_owned()
                }
                Outcome::Matched if self.collected.contains(&i) => {
                    "matched (collected: evaluation goes on)".to_owned()
                }
                Outcome::Matched if self.model.transforms.contains(&i) => {
                    "matched (transform: later hooks read the patched context)".to_owned()
                }
                Outcome::Matched if self.model.resumed.contains(&i) => {
                    "matched (awaited: the host's result is bound, evaluation goes on)".to_owned()
                }
                Outcome::Matched if self.model.pending == Some(i) => {
                    "matched (awaited: evaluation suspends for the host's result)".to_owned()
                }
                Outcome::Matched if h.effect == Effect::Collected => {
                    "matched (collected, but an earlier hook decided first)".to_owned()
                }
                Outcome::Matched if self.model.reason.is_some() && h.effect == Effect::Terminal => {
                    "matched (terminal, but another match decides: see `why`)".to_owned()
                }
                Outcome::Matched => "matched (an earlier hook matched first)".to_owned(),
                Outcome::NotMatched => "not matched: condition is false".to_owned(),
                Outcome::Error {
                    error,
                    at: Some(at),
                } => format!("not matched: error ({error}) {at}"),
                Outcome::Error { error, at: None } => format!("not matched: error ({error})"),
                Outcome::NotBool(v) => format!("not matched: condition gave {v}, not a bool"),
                Outcome::Disabled => "skipped: disabled for this call".to_owned(),
            };
            let at = h.at.as_deref().map_or(String::new(), |a| format!(", {a}"));
            out.push_str(&format!(
                "  {}. {} (priority {}{at}): {what}\n",
                i + 1,
                h.hook,
                h.priority
            ));
            if let Some(row) = h.row {
                out.push_str(&format!("       pattern table: row {row} matched\n"));
            }
            let last = h.evaluated.len().checked_sub(1);
            for (k, c) in h.evaluated.iter().enumerate() {
                let result = match &c.result {
                    Ok(v) => v.to_string(),
                    Err(e) => format!("error ({e})"),
                };
                let decided = if Some(k) == last { "  <- decided" } else { "" };
                out.push_str(&format!(
                    "       {}  `{}` -> {result}{decided}\n",
                    c.at, c.condition
                ));
                for r in &c.reads {
                    out.push_str(&format!("           {}\n", r.to_text()));
                }
            }
            for r in &h.reads {
                out.push_str(&format!("       read {}\n", r.to_text()));
            }
        }
        for d in &self.derived {
            out.push_str(&format!(
                "derived once: {}({}) = {}\n",
                d.function,
                Value::from(d.input.as_str()),
                d.value
            ));
        }
        for (i, why) in &self.model.failures {
            if let Some(h) = self.hooks.get(*i) {
                out.push_str(&format!("failure: {}: {why}\n", h.hook));
            }
        }
        if let Some(reason) = &self.model.reason {
            out.push_str(&format!("why: {reason}\n"));
        }
        if let Some(h) = self.model.pending.and_then(|p| self.hooks.get(p)) {
            out.push_str(&format!("pending: {} (resume with its result)\n", h.hook));
        }
        let transforms = match self.ids(&self.model.transforms).as_slice() {
            [] => String::new(),
            ids => format!("; transforms: {}", ids.join(", ")),
        };
        let collected = match self.collected_ids().as_slice() {
            [] => transforms,
            ids => format!("; collected: {}{transforms}", ids.join(", ")),
        };
        if let Some((_, id)) = failed {
            out.push_str(&format!("result: the evaluation fails at {id}\n"));
            return out;
        }
        match self.winner.and_then(|w| self.hooks.get(w)) {
            Some(h) => out.push_str(&format!("result: {}{collected}\n", h.hook)),
            None if collected.is_empty() => out.push_str("result: no hook matched\n"),
            None => out.push_str(&format!("result: no terminal hook matched{collected}\n")),
        }
        out
    }

    /// The ids of the collected matches, in order.
    fn collected_ids(&self) -> Vec<&str> {
        self.ids(&self.collected)
    }

    /// The ids of the hooks at `positions`.
    fn ids(&self, positions: &[usize]) -> Vec<&str> {
        positions
            .iter()
            .filter_map(|&i| self.hooks.get(i))
            .map(|h| h.hook.as_str())
            .collect()
    }
}

impl SubCondition {
    /// `{"condition", "at", "result" | "error", "reads"}`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("condition".into(), self.condition.clone().into());
        m.insert("at".into(), self.at.clone().into());
        match &self.result {
            Ok(v) => m.insert("result".into(), v.clone()),
            Err(e) => m.insert("error".into(), e.to_string().into()),
        };
        m.insert("reads".into(), reads_json(&self.reads));
        Value::Object(m)
    }
}

impl Read {
    /// `path = value`, or `path is missing`.
    pub fn to_text(&self) -> String {
        match &self.value {
            Some(v) => format!("{} = {v}", self.path),
            None => format!("{} is missing", self.path),
        }
    }
}

/// Reads as JSON: `[{"path", "value"}, ...]`, with `"missing": true`
/// instead of a value where the path does not resolve.
fn reads_json(reads: &[Read]) -> Value {
    Value::Array(
        reads
            .iter()
            .map(|r| {
                let mut m = Map::new();
                m.insert("path".into(), r.path.clone().into());
                match &r.value {
                    Some(v) => m.insert("value".into(), v.clone()),
                    None => m.insert("missing".into(), true.into()),
                };
                Value::Object(m)
            })
            .collect(),
    )
}
