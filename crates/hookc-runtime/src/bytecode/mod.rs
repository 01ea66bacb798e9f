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
//! Every instruction is declared once, in [`Op`], with its stack effect in
//! [`Op::stack_effect`]; the lowering, the VM, the artifact codec, the
//! verifier and the disassembler all work from it.
//!
//! Invariant (verified): a `Program` is only run after
//! [`crate::verify`] has checked every index, jump and stack depth.

pub use path::{Path, Segment, Step};

pub mod disasm;
mod index;
mod kinds;
pub mod path;

pub use index::{ActionIdx, ConstIdx, JumpTarget, PathIdx, RegexIdx, SetIdx, StrIdx};
pub use kinds::Kinds;

/// Writes `text` so that the template reader reads it back as this literal:
/// every `${` becomes `$${`.
pub fn escape_template_literal(text: &str) -> String {
    text.replace("${", "$${")
}

/// Comparison operators of the fused `path OP constant` instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CmpOp {
    /// `==`
    Eq = 0,
    /// `!=`
    Ne = 1,
    /// `<`
    Lt = 2,
    /// `<=`
    Le = 3,
    /// `>`
    Gt = 4,
    /// `>=`
    Ge = 5,
}

/// The list macros.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum MacroOp {
    /// `exists`: true if any element gives true (errors absorbed by a true).
    Exists = 0,
    /// `all`: false if any element gives false (errors absorbed by a false).
    All = 1,
    /// `exists_one`: exactly one element gives true; any error is the result.
    ExistsOne = 2,
}

/// One instruction. Operands index the [`Program`]'s tables (typed indexes:
/// [`StrIdx`], [`PathIdx`], ...) or are absolute code positions within the
/// same hook's code ([`JumpTarget`]s).
///
/// Stack effects are written `pops -> pushes`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    /// `0 -> 1`: push `consts[i]`.
    Const(ConstIdx),
    /// `0 -> 1`: push `true`.
    True,
    /// `0 -> 1`: push `false`.
    False,
    /// `0 -> 1`: push `null`.
    Null,
    /// `0 -> 1`: push the value at `paths[i]`, or an error (no such key) if it does not resolve.
    Path(PathIdx),
    /// `0 -> 1`: push the variable of the macro `d` levels out from the innermost (0 = innermost).
    Var(u16),
    /// `1 -> 1`: `top.strings[i]`.
    Field(StrIdx),
    /// `2 -> 1`: `a[b]`.
    Index,
    /// `0 -> 1`: `has(paths[i])`: every segment resolves.
    HasPath(PathIdx),
    /// `1 -> 1`: `has(top.strings[i])`.
    HasField(StrIdx),
    /// `1 -> 1`: `!a`.
    Not,
    /// `1 -> 1`: `-a`.
    Neg,
    /// `2 -> 1`: `a + b`.
    Add,
    /// `2 -> 1`: `a - b`.
    Sub,
    /// `2 -> 1`: `a * b`.
    Mul,
    /// `2 -> 1`: `a / b`.
    Div,
    /// `2 -> 1`: `a % b`.
    Rem,
    /// `2 -> 1`: `a OP b`.
    Cmp(CmpOp),
    /// `2 -> 1`: `a in b`.
    In,
    /// `1 -> 1`: `a in sets[i]` (a constant list, hashed at load).
    InSet(SetIdx),
    /// `1 -> 1`: `size(a)`.
    Size,
    /// `2 -> 1`: `a.contains(b)`.
    Contains,
    /// `2 -> 1`: `a.startsWith(b)`.
    StartsWith,
    /// `2 -> 1`: `a.endsWith(b)`.
    EndsWith,
    /// `1 -> 1`: `a.matches(regexes[i])`.
    Matches(RegexIdx),
    /// `1 -> 1`: whether `a`'s kind is in the set (bits of [`crate::bytecode::Kinds`]).
    TypeIs(u8),
    /// `n -> 1`: a list of the top `n` values (first pushed first).
    MakeList(u32),
    /// `0 -> 1`: fused `paths[path] OP consts[konst]`.
    PathCmpConst {
        /// The path.
        path: PathIdx,
        /// The constant.
        konst: ConstIdx,
        /// The comparison.
        op: CmpOp,
    },
    /// `0 -> 1`: fused `paths[path] in sets[set]`.
    PathInSet {
        /// The path.
        path: PathIdx,
        /// The set.
        set: SetIdx,
    },
    /// `0 -> 1`: fused `paths[path].matches(regexes[regex])`.
    PathMatches {
        /// The path.
        path: PathIdx,
        /// The regex.
        regex: RegexIdx,
    },
    /// `1 -> 1` (falls through) or `1 -> 1` (jumps): `&&`'s left side is on
    /// top; if it is `false`, jump to `target` leaving it as the result;
    /// otherwise keep it and evaluate the right side.
    AndShort(JumpTarget),
    /// `2 -> 1`: combine `a && b` (CEL's commutative error absorption).
    AndJoin,
    /// Like [`Op::AndShort`] for `||`, deciding on `true`.
    OrShort(JumpTarget),
    /// `2 -> 1`: combine `a || b`.
    OrJoin,
    /// `1 -> 0` (true: fall through; false: jump to `otherwise`) or `1 -> 1`
    /// (not a bool: push an error and jump to `end`): the condition of `?:`.
    Branch {
        /// Start of the `else` code.
        otherwise: JumpTarget,
        /// Just past the whole conditional.
        end: JumpTarget,
    },
    /// `0 -> 0`: jump to the target (forward).
    Jump(JumpTarget),
    /// `1 -> 0` then the body: pop the range (a list, or an object's keys);
    /// if it is empty or not iterable, push the macro's result (or an error)
    /// and jump to `end`; otherwise bind the first element and run the body.
    MacroStart {
        /// Which macro.
        kind: MacroOp,
        /// Just past the matching `MacroNext`.
        end: JumpTarget,
    },
    /// `1 -> 0` or `1 -> 1`: pop the body's value for the current element;
    /// either decide the result (push it, fall through) or bind the next
    /// element and continue at the body's first instruction.
    MacroNext,
    /// `1 -> 0`: the hook's result; ends the hook's code.
    Return,
}

impl Op {
    /// `(pops, pushes)`. For the control instructions this is the effect on
    /// the fall-through path; the verifier knows their other paths.
    pub fn stack_effect(&self) -> (u32, u32) {
        match self {
            Op::Const(_) | Op::True | Op::False | Op::Null | Op::Path(_) | Op::Var(_) => (0, 1),
            Op::HasPath(_)
            | Op::PathCmpConst { .. }
            | Op::PathInSet { .. }
            | Op::PathMatches { .. } => (0, 1),
            Op::Field(_) | Op::HasField(_) | Op::Not | Op::Neg | Op::InSet(_) | Op::Size => (1, 1),
            Op::Matches(_) | Op::TypeIs(_) => (1, 1),
            Op::Index | Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Rem | Op::Cmp(_) | Op::In => {
                (2, 1)
            }
            Op::Contains | Op::StartsWith | Op::EndsWith | Op::AndJoin | Op::OrJoin => (2, 1),
            Op::MakeList(n) => (*n, 1),
            Op::AndShort(_) | Op::OrShort(_) => (1, 1),
            Op::Branch { .. } => (1, 0),
            Op::Jump(_) => (0, 0),
            Op::MacroStart { .. } => (1, 0),
            Op::MacroNext => (1, 1),
            Op::Return => (1, 0),
        }
    }
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
}

/// A part of a template string.
#[derive(Debug, Clone, PartialEq)]
pub enum TemplatePart {
    /// Literal text.
    Lit(StrIdx),
    /// The value at `paths[i]`, stringified (or, for a whole template, as is).
    Path(PathIdx),
}

/// An action parameter value: constant subtrees are pre-built JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    /// `consts[i]`, used as is.
    Const(ConstIdx),
    /// A string with references; exactly one `Path` part and nothing else
    /// keeps the referenced value's JSON type.
    Template(Vec<TemplatePart>),
    /// A list with at least one template inside.
    List(Vec<ParamValue>),
    /// An object with at least one template inside.
    Object(Vec<(StrIdx, ParamValue)>),
}

/// A hook's action: its type and complete parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionEntry {
    /// The action type.
    pub kind: StrIdx,
    /// Parameters (name, value) in declaration order.
    pub params: Vec<(StrIdx, ParamValue)>,
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
    pub strings: Vec<String>,
    /// Interned context paths.
    pub paths: Vec<Path>,
    /// Constant pool (ints and doubles kept apart; no NaN: JSON has none).
    pub consts: Vec<serde_json::Value>,
    /// Regex patterns (compiled once, at load).
    pub regexes: Vec<String>,
    /// Constant lists used with `in`, by `consts` index (hashed at load).
    pub sets: Vec<ConstIdx>,
    /// All hooks' code, one hook after another.
    pub code: Vec<Op>,
    /// The hooks, in evaluation order (enabled hooks only).
    pub hooks: Vec<HookEntry>,
    /// The actions (`HookEntry::action`).
    pub actions: Vec<ActionEntry>,
    /// Hooks by event.
    pub events: EventIndex,
    /// Source locations for explain traces (may be empty).
    pub debug: DebugInfo,
    /// The layers' names, lowest first: at equal priority a later layer's
    /// hooks run first.
    pub layers: Vec<StrIdx>,
}

// The typed accessors: `None` (or `""`) for a bad index, which verified
// programs have none of; callers never index a table with a raw number.
impl Program {
    /// A string of the table, or `""` for a bad index.
    pub fn string(&self, i: StrIdx) -> &str {
        self.get_string(i).unwrap_or("")
    }

    /// A string of the table.
    pub fn get_string(&self, i: StrIdx) -> Option<&str> {
        self.strings.get(i.as_usize()).map(String::as_str)
    }

    /// A path of the table.
    pub fn path(&self, i: PathIdx) -> Option<&Path> {
        self.paths.get(i.as_usize())
    }

    /// A constant of the pool.
    pub fn konst(&self, i: ConstIdx) -> Option<&serde_json::Value> {
        self.consts.get(i.as_usize())
    }

    /// A regex pattern of the table.
    pub fn regex(&self, i: RegexIdx) -> Option<&str> {
        self.regexes.get(i.as_usize()).map(String::as_str)
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
