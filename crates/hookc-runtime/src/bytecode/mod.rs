//! The bytecode: the instruction set and the [`Program`] that holds a whole
//! compiled policy (hooks in evaluation order, their code, and the tables the
//! code refers to).
//!
//! A hook's condition is a straight-line stack program with forward jumps
//! only. The one exception is a macro's body, which `MacroNext` re-runs once
//! per element of the macro's range, bounded by the range's length and by
//! [`crate::limits::MAX_MACRO_ITERATIONS`]; so evaluation time is linear in
//! the program plus the parts of the context it reads.
//!
//! Every instruction is declared once, in the instruction table
//! (`for_each_op!` in `bytecode/op.rs`), which generates [`Op`], its stack
//! effects, its operand visitor ([`Op::try_for_each_operand`], by
//! [`Operand`] kind) and the artifact codec; the lowering, the VM, the
//! verifier, the disassembler and explain all work from it.
//!
//! Invariant (verified): a `Program` is only run after
//! [`crate::verify`] has checked every index, jump and stack depth.

pub use path::{Path, Segment, Step};

mod consts;
mod index;
mod kinds;
mod op;
pub mod path;
pub mod shape;
mod strings;

pub use consts::ConstPool;
pub use index::{ActionIdx, ConstIdx, JumpTarget, PathIdx, RegexIdx, SetIdx, StrIdx, TableIdx};
pub use kinds::{is_integral, Kinds};
pub(crate) use op::{for_each_op, operand_type};
pub use op::{CmpOp, Flow, FuncId, MacroOp, Op, Operand, OperandKindChanged};
pub use strings::StringTable;

/// Writes `text` so that the template reader reads it back as this literal:
/// every `${` becomes `$${`.
pub fn escape_template_literal(text: &str) -> String {
    text.replace("${", "$${")
}

/// One hook of the program.
#[derive(Debug, Clone, PartialEq)]
pub struct HookEntry {
    /// Its id.
    pub id: StrIdx,
    /// Priority (higher first).
    pub priority: i64,
    /// Its layer: an index into [`Program::layers`].
    pub layer: u32,
    /// Its description, if any.
    pub description: Option<StrIdx>,
    /// `[start, end)` of its code in [`Program::code`]; empty = no condition (always matches).
    pub code: (u32, u32),
    /// Deepest operand stack its code needs (verified).
    pub max_stack: u32,
    /// Its action.
    pub action: ActionIdx,
    /// `replace: true`: layered over another program
    /// ([`crate::Policy::with_layer`]), it replaces that program's hook of
    /// the same id (`docs/src/semantics.md#replacement-and-layering`).
    pub replace: bool,
}

/// A hook the program knows by id but leaves out: disabled (`enabled:
/// false`) or replaced by a hook of a higher layer. Its id can still be
/// named by an override (a no-op) and by layering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbsentHook {
    /// Its id, which no hook of [`Program::hooks`] has.
    pub id: StrIdx,
    /// Whether it was marked `replace` (a disabled replacement still
    /// replaces when layered at run time).
    pub replace: bool,
}

/// A hook's pattern table (`docs/src/semantics.md#pattern-tables`): rows
/// tested in order against the string at a context path, by one
/// multi-pattern matcher built at load ([`crate::verify::VerifiedProgram::table`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PatternTable {
    /// The path of the string the rows' patterns are matched against.
    pub on: PathIdx,
    /// Each row's pattern, in row order: regexes of [`Program::regexes`].
    pub patterns: Vec<RegexIdx>,
    /// A list constant of one object per row, in row order: the row's
    /// fields (every field of the table, `null` where the row gives none).
    pub rows: ConstIdx,
}

/// A part of a template string.
#[derive(Debug, Clone, PartialEq)]
pub enum TemplatePart {
    /// Literal text.
    Lit(StrIdx),
    /// The value at `paths[i]`, stringified (or, for a whole template, as is).
    Path(PathIdx),
    /// The value of an expression (`${a ?? b}`, `${s.truncate(80)}`): the
    /// code `[start, end)` of [`Program::code`], which ends in `Return`
    /// and is verified like a hook's code (forward jumps, stack discipline,
    /// `max_stack`). Stringified as a path's value (or, for a whole
    /// template, as is); an error value fills in as a missing path does.
    Expr {
        /// `[start, end)` of its code in [`Program::code`]; never empty.
        code: (u32, u32),
        /// Deepest operand stack its code needs (verified).
        max_stack: u32,
    },
}

impl TemplatePart {
    /// Whether the part is an expression with code of its own.
    pub fn is_expr(&self) -> bool {
        matches!(self, TemplatePart::Expr { .. })
    }
}

/// An action parameter value: constant subtrees are pre-built JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    /// `consts[i]`, used as is.
    Const(ConstIdx),
    /// A string with references; exactly one `Path` or `Expr` part and
    /// nothing else keeps the value's JSON type.
    Template(Vec<TemplatePart>),
    /// A list with at least one template inside.
    List(Vec<ParamValue>),
    /// An object with at least one template inside.
    Object(Vec<(StrIdx, ParamValue)>),
}

/// What a match of an action does to the evaluation
/// (`docs/src/semantics.md#action-effects`): declared per action type
/// (`effect:` in `action_types`), recorded per action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Effect {
    /// The match decides: evaluation ends with it (retry, fail, deny, block).
    #[default]
    Terminal,
    /// The match is collected and evaluation goes on (observe, log,
    /// inject_context, allow).
    Collected,
    /// The match's `patch` parameter is merged into the context (RFC 7396)
    /// and evaluation goes on: later hooks read the patched context
    /// (`docs/src/semantics.md#transforms`).
    Transform,
    /// The match suspends the evaluation until the host performs the action
    /// and resumes with its result, which later hooks read
    /// (`docs/src/semantics.md#resumable-decisions`).
    Await,
}

impl Spelled for Effect {
    const ALL: &'static [(Effect, &'static str)] = &[
        (Effect::Terminal, "terminal"),
        (Effect::Collected, "collected"),
        (Effect::Transform, "transform"),
        (Effect::Await, "await"),
    ];
}

/// Where an awaited action's result is bound, when not at
/// `results.<hook id>` (`docs/src/semantics.md#resumable-decisions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// At this path (fields only).
    Path(PathIdx),
    /// At the top-level key the action's parameter of this name holds once
    /// filled (a string); a `null` there binds nothing.
    Parameter(StrIdx),
}

/// The parameter of a transform action that holds its merge patch.
pub const PATCH_PARAM: &str = "patch";

/// The optional parameter of a transform action whose members are set
/// after its patch is merged: as the patch, recursively into objects, but
/// a `null` member is set to `null`, not removed
/// (`docs/src/semantics.md#transforms`).
pub const SET_PARAM: &str = "set";

/// Where an awaited hook's result is bound when its action names no other
/// path: `results.<hook id>`.
pub const RESULTS_ROOT: &str = "results";

/// The context root of the environment variables a policy declares
/// (`env:`; `docs/src/semantics.md#environment-variables`): a hook call
/// gives the evaluation `env.NAME` for each declared variable its code
/// reads that is set.
pub const ENV_ROOT: &str = "env";

/// The context root that the templates of an `on_error` action read the
/// failure from: `policy_error.hook`, `policy_error.cause`.
pub const POLICY_ERROR_ROOT: &str = "policy_error";

/// How the matches of an event combine into its decision
/// (`docs/src/semantics.md#combining`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Combine {
    /// The first terminal match in hook order decides.
    #[default]
    FirstMatch,
    /// Every hook runs; the terminal match of highest severity decides
    /// (the earlier one on a tie).
    Strictest,
}

impl Spelled for Combine {
    const ALL: &'static [(Combine, &'static str)] = &[
        (Combine::FirstMatch, "first_match"),
        (Combine::Strictest, "strictest"),
    ];
}

/// What a hook that cannot decide (its condition is an error, or its
/// action's templates do not fit) does to the evaluation
/// (`docs/src/semantics.md#hook-errors`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnError {
    /// The hook does not match; a failing collected, transform or await
    /// hook is reported in the decision's `errors`.
    #[default]
    Skip,
    /// The evaluation fails, naming the hook and the cause.
    Fail,
    /// This terminal action decides, its templates reading
    /// `policy_error.hook` and `policy_error.cause`.
    Action(ActionIdx),
}

/// The policy's decision model: how matches combine and what errors do.
/// The default is the model of format-3 artifacts, which carry none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DecisionModel {
    /// How terminal matches combine.
    pub combine: Combine,
    /// What a failing hook does.
    pub on_error: OnError,
}

/// A hook's action: its type and complete parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionEntry {
    /// The action type.
    pub kind: StrIdx,
    /// Whether a match of it ends the evaluation or is collected.
    pub effect: Effect,
    /// Its type's `severity` (0 when not declared): under
    /// [`Combine::Strictest`] the terminal match of highest severity decides.
    pub severity: i64,
    /// For an [`Effect::Await`] action, where the host's result is bound
    /// (`None`: `results.<hook id>`); `None` for every other effect.
    pub bind: Option<Binding>,
    /// Parameters in declaration order.
    pub params: Vec<ActionParam>,
}

impl ParamValue {
    /// Whether an expression part ([`TemplatePart::Expr`]) occurs anywhere
    /// in the value.
    pub fn has_expr(&self) -> bool {
        match self {
            ParamValue::Const(_) => false,
            ParamValue::Template(parts) => parts.iter().any(TemplatePart::is_expr),
            ParamValue::List(items) => items.iter().any(ParamValue::has_expr),
            ParamValue::Object(entries) => entries.iter().any(|(_, v)| v.has_expr()),
        }
    }
}

impl ActionEntry {
    /// Whether the action carries anything of the decision model (a new
    /// effect, a severity, a binding), which format 3 cannot hold.
    pub fn uses_model(&self) -> bool {
        matches!(self.effect, Effect::Transform | Effect::Await)
            || self.severity != 0
            || self.bind.is_some()
    }
}

/// One parameter of an action: its name, its value, and the check its
/// filled value must pass.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionParam {
    /// The parameter's name.
    pub name: StrIdx,
    /// Its value, templates unfilled.
    pub value: ParamValue,
    /// What the filled value must be (`docs/src/semantics.md#templates`): the
    /// compiler records the parameter's declared type here when the value
    /// holds a template whose filled value may not fit it; `None` for every
    /// other parameter (a constant is checked at compile time), so an
    /// action without templates carries no check. The verifier checks that
    /// a constant value satisfies its check; the VM checks the filled value
    /// and fails the evaluation with an `ActionError` when it does not.
    pub check: Option<ValueCheck>,
}

/// A parameter's declared type as a run-time check (an action type's
/// `type`, `enum` and `items`): a value passes when its kind is one of
/// `kinds`, it equals one of the `allowed` values (if any), and, when it is
/// a list and `items` is given, every item passes `items`.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueCheck {
    /// The kinds allowed (`integer` is [`Kinds::INT`], `number` is
    /// [`Kinds::NUMBER`]); never empty.
    pub kinds: Kinds,
    /// The `enum`: a constant that is a list of the allowed values (compared
    /// with the language's `==`, so `1` and `1.0` are the same value).
    pub allowed: Option<ConstIdx>,
    /// The check of each item of a list.
    pub items: Option<Box<ValueCheck>>,
}

impl ActionParam {
    /// A parameter without a check.
    pub fn new(name: StrIdx, value: ParamValue) -> ActionParam {
        ActionParam {
            name,
            value,
            check: None,
        }
    }
}

impl ValueCheck {
    /// How deeply its `items` checks nest (1 for a check without `items`).
    pub fn depth(&self) -> usize {
        let mut depth = 1;
        let mut cur = self;
        while let Some(items) = &cur.items {
            depth += 1;
            cur = items;
        }
        depth
    }
}

/// Where each hook and each of its sub-conditions came from, for explain
/// traces: the artifact's optional `debug` section (`hookc compile --strip`
/// leaves it out). Either empty or one entry per hook, in hook order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DebugInfo {
    /// Per hook (same index as [`Program::hooks`]).
    pub hooks: Vec<HookDebug>,
}

/// One hook's source information.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HookDebug {
    /// The hook's location, `file:line:col`.
    pub at: StrIdx,
    /// Its sub-conditions, by ascending [`Mark::op`].
    pub marks: Vec<Mark>,
}

/// A sub-condition of a hook: an operand of its `&&`, `||`, `!` and `?:`
/// that is none of those itself (a comparison, a call, a macro, ...).
///
/// Its code ends at `op`: right after that instruction runs, the
/// sub-condition's value is on top of the stack. Sub-conditions are never
/// inside a macro body, so `op` runs at most once per evaluation, except
/// when it is a macro's own last instruction (`MacroNext`), whose last run
/// gives the value.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// Absolute code index of the sub-condition's last instruction.
    pub op: u32,
    /// Its canonical `when` text.
    pub text: StrIdx,
    /// Its location, `file:line:col`.
    pub at: StrIdx,
}

/// For each event name, the hooks that listen to it, in evaluation order
/// (`"*"` hooks merged in); events not named get `wildcard`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EventIndex {
    /// `(event name, hook indexes)`, sorted by name.
    pub named: Vec<(StrIdx, Vec<u32>)>,
    /// The `"*"` hooks, for any other event.
    pub wildcard: Vec<u32>,
}

/// A compiled policy.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Program {
    /// Interned strings: field names, ids, event names, template text, descriptions.
    pub strings: StringTable,
    /// Interned context paths.
    pub paths: Vec<Path>,
    /// Constant pool (ints and doubles kept apart; no NaN: JSON has none;
    /// a loaded string constant built on first use).
    pub consts: ConstPool,
    /// Regex patterns (each parsed and compiled once, on its first search:
    /// `value::policy_regex`).
    pub regexes: Vec<String>,
    /// The literals every match of each regex contains
    /// ([`required_literals`](crate::value::policy_regex::required_literals)),
    /// one list per regex, as the compiler records them for the runtime's
    /// prefilter; or none at all (formats 3 to 5), and then a regex is
    /// parsed on its first search to find them.
    pub regex_literals: Vec<Vec<String>>,
    /// For each regex that requires no literal, literals of which every
    /// match contains at least one
    /// ([`one_of_literals_in`](crate::value::policy_regex::one_of_literals_in):
    /// the alternatives of `(ghp|gho)_...|AKIA...`), one list per regex,
    /// empty for the others; or none at all when no regex has such a set.
    /// A haystack with none of them is no match, answered without parsing
    /// the pattern.
    pub regex_one_of: Vec<Vec<String>>,
    /// Constant lists used with `in`, by `consts` index (hashed at load).
    pub sets: Vec<ConstIdx>,
    /// All hooks' code, one hook after another.
    pub code: Vec<Op>,
    /// The hooks, in evaluation order (enabled hooks only).
    pub hooks: Vec<HookEntry>,
    /// The actions (`HookEntry::action`).
    pub actions: Vec<ActionEntry>,
    /// The hooks' pattern tables (`Op::Row`).
    pub tables: Vec<PatternTable>,
    /// Hooks by event.
    pub events: EventIndex,
    /// Source locations for explain traces (may be empty).
    pub debug: DebugInfo,
    /// The layers' names, lowest first: at equal priority a later layer's
    /// hooks run first.
    pub layers: Vec<StrIdx>,
    /// Which priorities the hooks' order puts first.
    pub priority_order: PriorityOrder,
    /// The ids of the hooks left out (disabled or replaced), in the order
    /// the compilation met them; none is the id of a hook of `hooks`.
    pub absent: Vec<AbsentHook>,
    /// How matches combine and what errors do.
    pub model: DecisionModel,
    /// What a host answer adds to a decision's reason
    /// (`docs/src/semantics.md#attribution`).
    pub attribution: Attribution,
    /// Whether the policy declares environment variables (`env:`), which
    /// a hook call reads into `env` ([`ENV_ROOT`]); a header flag of the
    /// artifact.
    pub reads_environment: bool,
    /// The context members a decision log keeps only as a keyed hash
    /// (`sensitive:`), each once; a header flag and a section of the
    /// artifact when there are any.
    pub sensitive: Vec<PathIdx>,
}

/// Which priorities run first (`priority_order:` of a hook file;
/// `docs/src/semantics.md#hook-order`). The program's hooks are sorted in this
/// direction; the verifier checks it and the artifact records it in a
/// header flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PriorityOrder {
    /// `higher_first`, the default: priority 100 runs before priority 10.
    #[default]
    HigherFirst,
    /// `lower_first`: priority 10 runs before priority 100, as in hook
    /// registries that run lower priorities first.
    LowerFirst,
}

impl Spelled for PriorityOrder {
    const ALL: &'static [(PriorityOrder, &'static str)] = &[
        (PriorityOrder::HigherFirst, "higher_first"),
        (PriorityOrder::LowerFirst, "lower_first"),
    ];
}

/// What a host answer adds to the reason of the decision it carries
/// (`attribution:` of a hook file; `docs/src/semantics.md#attribution`).
/// The decision log and explain traces always name the hook; this is the
/// text the host shows the model and the user. The artifact records it in
/// two header flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Attribution {
    /// `location`, the default: `REASON [hook ID at FILE:LINE:COL]`, the
    /// file from the project's `.hookc` folder on.
    #[default]
    Location,
    /// `id`: `REASON [hook ID]`.
    Id,
    /// `off`: the reason as the action wrote it, and no reason where it
    /// gave none.
    Off,
}

impl Spelled for Attribution {
    const ALL: &'static [(Attribution, &'static str)] = &[
        (Attribution::Location, "location"),
        (Attribution::Id, "id"),
        (Attribution::Off, "off"),
    ];
}

/// A closed set of choices a hook file spells as words (`priority_order:
/// lower_first`, `effect: collected`): one table per enum serves the
/// reader, the writer and the messages that list the choices.
pub trait Spelled: Copy + PartialEq + Sized + 'static {
    /// Every choice with its spelling, in the order messages list them.
    const ALL: &'static [(Self, &'static str)];

    /// Every spelling, as written in a hook file.
    fn names() -> impl Iterator<Item = &'static str> + Clone {
        Self::ALL.iter().map(|(_, name)| *name)
    }

    /// The choice a spelling names.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(c, _)| *c)
    }

    /// As written in a hook file.
    fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(c, _)| *c == self)
            .map_or("", |(_, name)| name)
    }
}

// The typed accessors: `None` (or `""`) for a bad index, which verified
// programs have none of; callers never index a table with a raw number.
impl Program {
    /// Whether the code calls the function table (`Call`, `CallRegex`, the
    /// `map` and `filter` macros), which formats 3 and 4 cannot hold.
    pub fn uses_functions(&self) -> bool {
        self.code.iter().any(|op| {
            matches!(
                op,
                Op::Call(_)
                    | Op::CallRegex { .. }
                    | Op::MacroStart {
                        kind: MacroOp::Map | MacroOp::Filter,
                        ..
                    }
            )
        })
    }

    /// Whether the code keeps a local name's value (`LocalLoad`,
    /// `LocalStore`), which only format 7 can hold.
    pub fn uses_locals(&self) -> bool {
        self.code
            .iter()
            .any(|op| matches!(op, Op::LocalLoad { .. } | Op::LocalStore(_)))
    }

    /// Whether the program uses the decision model beyond format 3's first
    /// match (a combining mode, an error policy, transforms, awaits,
    /// severities): only such programs are written with the `model`
    /// section (format 4, or 5 when they call functions).
    pub fn uses_model(&self) -> bool {
        self.model != DecisionModel::default() || self.actions.iter().any(ActionEntry::uses_model)
    }

    /// Whether some action's template holds an expression part
    /// ([`TemplatePart::Expr`]), which only formats 5 and 6 can hold.
    pub fn uses_template_code(&self) -> bool {
        self.actions
            .iter()
            .any(|a| a.params.iter().any(|p| p.value.has_expr()))
    }

    /// Whether the program needs format 5 (or 6): function calls, template
    /// expressions or pattern tables.
    pub fn uses_format_5(&self) -> bool {
        self.uses_template_code() || !self.tables.is_empty() || self.uses_functions()
    }

    /// A pattern table.
    pub fn table(&self, i: TableIdx) -> Option<&PatternTable> {
        self.tables.get(i.as_usize())
    }

    /// A string of the table, or `""` for a bad index.
    pub fn string(&self, i: StrIdx) -> &str {
        self.get_string(i).unwrap_or("")
    }

    /// A string of the table.
    pub fn get_string(&self, i: StrIdx) -> Option<&str> {
        self.strings.get(i.as_usize())
    }

    /// A path of the table.
    pub fn path(&self, i: PathIdx) -> Option<&Path> {
        self.paths.get(i.as_usize())
    }

    /// A constant of the pool.
    #[inline]
    pub fn konst(&self, i: ConstIdx) -> Option<&serde_json::Value> {
        self.consts.get(i.as_usize())
    }

    /// A regex pattern of the table.
    pub fn regex(&self, i: RegexIdx) -> Option<&str> {
        self.regexes.get(i.as_usize()).map(String::as_str)
    }

    /// The literals recorded as required by regex `i`
    /// ([`regex_literals`](Self::regex_literals)): empty when none are.
    pub fn required_literals_of(&self, i: RegexIdx) -> &[String] {
        self.regex_literals
            .get(i.as_usize())
            .map_or(&[], Vec::as_slice)
    }

    /// The one-of set recorded for regex `i`
    /// ([`regex_one_of`](Self::regex_one_of)): empty when none is.
    pub fn one_of_literals_of(&self, i: RegexIdx) -> &[String] {
        self.regex_one_of
            .get(i.as_usize())
            .map_or(&[], Vec::as_slice)
    }

    /// The constant a set hashes.
    pub fn set(&self, i: SetIdx) -> Option<ConstIdx> {
        self.sets.get(i.as_usize()).copied()
    }

    /// An action.
    pub fn action(&self, i: ActionIdx) -> Option<&ActionEntry> {
        self.actions.get(i.as_usize())
    }

    /// A layer's name.
    pub fn layer(&self, i: u32) -> Option<StrIdx> {
        self.layers.get(i as usize).copied()
    }

    /// The hooks listening to `event`, in evaluation order.
    pub fn hooks_for(&self, event: &str) -> &[u32] {
        match self
            .events
            .named
            .binary_search_by(|(name, _)| self.string(*name).cmp(event))
        {
            Ok(i) => self.events.named.get(i).map_or(&[], |(_, h)| h.as_slice()),
            Err(_) => &self.events.wildcard,
        }
    }
}
