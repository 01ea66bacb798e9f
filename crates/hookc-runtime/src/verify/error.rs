//! Why a program was rejected ([`VerifyError`]) and where ([`Location`]).

#[cfg(doc)]
use crate::bytecode::Program;
#[cfg(doc)]
use crate::limits::MAX_STACK_DEPTH;
use std::fmt;
use thiserror::Error;

/// Where in a program a [`VerifyError`] was found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Location {
    /// The program as a whole.
    Program,
    /// A path of the path table.
    Path(u32),
    /// A constant of the constant pool.
    Const(u32),
    /// A set.
    Set(u32),
    /// An action.
    Action(u32),
    /// A hook.
    Hook {
        /// Its index in [`Program::hooks`].
        hook: u32,
        /// Its id (or `#n` if the id index itself is bad).
        id: String,
    },
    /// An instruction of a hook's code.
    Instruction {
        /// The hook's index in [`Program::hooks`].
        hook: u32,
        /// The hook's id.
        id: String,
        /// The instruction's index in [`Program::code`].
        ip: u32,
    },
    /// An instruction of the code of a template expression
    /// ([`crate::bytecode::TemplatePart::Expr`]).
    TemplateInstruction {
        /// The action's index in [`Program::actions`].
        action: u32,
        /// The instruction's index in [`Program::code`].
        ip: u32,
    },
    /// The event index.
    Events,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Program => f.write_str("program"),
            Location::Path(i) => write!(f, "path {i}"),
            Location::Const(i) => write!(f, "constant {i}"),
            Location::Set(i) => write!(f, "set {i}"),
            Location::Action(i) => write!(f, "action {i}"),
            Location::Hook { hook, id } => write!(f, "hook {hook} (`{id}`)"),
            Location::Instruction { hook, id, ip } => {
                write!(f, "hook {hook} (`{id}`), instruction {ip}")
            }
            Location::TemplateInstruction { action, ip } => {
                write!(f, "action {action}, template expression, instruction {ip}")
            }
            Location::Events => f.write_str("event index"),
        }
    }
}

/// Why a program was rejected. Every message names where (a [`Location`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// A parameter's check is malformed: empty kinds, unknown kind bits, or
    /// an enum constant that is not a list.
    #[error("{at}: the check of parameter `{param}` {reason}")]
    BadCheck {
        /// The action.
        at: Location,
        /// The parameter.
        param: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A parameter's value can never pass its check: a constant (or an item
    /// of a list) that does not, or a value of a kind the check excludes.
    #[error("{at}: {problem}")]
    CheckFails {
        /// The action.
        at: Location,
        /// What fails, e.g. ``parameter `tags[1]` is 3, not a string``: the
        /// parameter (with the position of a failing item), its value
        /// (JSON, cut, or its kind) and what the check asks for.
        problem: String,
    },
    /// The decision model is inconsistent with the actions: a binding on an
    /// action that is not awaited, or an error-policy action that is not
    /// terminal.
    #[error("{at}: {reason}")]
    BadModel {
        /// The action.
        at: Location,
        /// What is wrong.
        reason: &'static str,
    },
    /// A set refers to a constant that is not a list.
    #[error("set {index} refers to constant {konst}, which is not a list")]
    BadSet {
        /// The set's index.
        index: usize,
        /// The constant it names.
        konst: u32,
    },
    /// A pattern table is malformed: no rows, a rows constant that is not a
    /// list of one object per pattern, or patterns that do not compile
    /// together.
    #[error("pattern table {index} {reason}")]
    BadTable {
        /// The table's index.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The literals recorded for the regexes' prefilter are not one list
    /// per regex, or a list is longer than
    /// [`MAX_REGEX_LITERALS`](crate::limits::MAX_REGEX_LITERALS).
    #[error("the regexes' required literals {reason}")]
    BadRegexLiterals {
        /// What is wrong with them.
        reason: String,
    },
    /// The recorded one-of sets are not one list per regex, or a list is
    /// longer than [`MAX_REGEX_ONE_OF`](crate::limits::MAX_REGEX_ONE_OF),
    /// holds an empty literal, or belongs to a regex that has required
    /// literals.
    #[error("the regexes' one-of literals {reason}")]
    BadRegexOneOf {
        /// What is wrong with them.
        reason: String,
    },
    /// A table has more entries than an index can address or the limit allows.
    #[error("the program has {len} {table}, over the limit of {limit}")]
    TableTooLarge {
        /// The table.
        table: &'static str,
        /// Its length.
        len: usize,
        /// The limit.
        limit: usize,
    },
    /// An index names no entry of its table.
    #[error("{at}: {table} index {index} is out of bounds (the program has {len})")]
    IndexOutOfBounds {
        /// Where.
        at: Location,
        /// The table (`strings`, `paths`, ...).
        table: &'static str,
        /// The index.
        index: u32,
        /// The table's length.
        len: usize,
    },
    /// A path's root is not an identifier.
    #[error("path {path}: root `{root}` is not an identifier")]
    BadPathRoot {
        /// The path's index.
        path: u32,
        /// Its root.
        root: String,
    },
    /// A constant or parameter value is nested too deeply.
    #[error("{at}: value nested deeper than {limit} levels")]
    TooDeep {
        /// Where.
        at: Location,
        /// The limit.
        limit: usize,
    },
    /// A name appears twice where names must be unique.
    #[error("{at}: duplicate {what} `{name}`")]
    Duplicate {
        /// Where.
        at: Location,
        /// What kind of name (`parameter`, `object key`, `event`, `path`).
        what: &'static str,
        /// The name.
        name: String,
    },
    /// A hook's code range is not inside the code, or out of order.
    #[error("{at}: code range {start}..{end} {reason}")]
    BadCodeRange {
        /// The hook.
        at: Location,
        /// Range start.
        start: u32,
        /// Range end.
        end: u32,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A hook's declared `max_stack` is below what its code needs, or over the limit.
    #[error("{at}: declared max_stack {declared}, but {reason} {needed}")]
    MaxStack {
        /// The hook.
        at: Location,
        /// The declared value.
        declared: u32,
        /// What is wrong with it.
        reason: &'static str,
        /// The needed height, or the limit.
        needed: u64,
    },
    /// The stack would grow past [`MAX_STACK_DEPTH`].
    #[error("{at}: operand stack deeper than the limit of {limit}")]
    StackTooDeep {
        /// Where.
        at: Location,
        /// The limit.
        limit: usize,
    },
    /// A jump target is not forward, past the hook, or crosses a macro body.
    #[error("{at}: jump target {target} {reason}")]
    BadJump {
        /// The jumping instruction.
        at: Location,
        /// The target.
        target: u32,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An instruction pops more values than the stack holds.
    #[error("{at}: pops {needs} values but the stack holds {height}")]
    StackUnderflow {
        /// Where.
        at: Location,
        /// Values popped.
        needs: u32,
        /// Height before.
        height: u32,
    },
    /// Two paths into an instruction (or a macro body's end) disagree on the stack height.
    #[error("{at}: stack height {found} here, but {expected} {context}")]
    StackMismatch {
        /// Where.
        at: Location,
        /// The height required.
        expected: u32,
        /// The height found.
        found: u32,
        /// Which other path requires `expected`.
        context: String,
    },
    /// An instruction no path reaches.
    #[error("{at}: unreachable instruction (no fall-through and no jump reaches it)")]
    Unreachable {
        /// Where.
        at: Location,
    },
    /// The hook's code does not end with `Return`.
    #[error("{at}: code does not end with `Return`")]
    MissingReturn {
        /// The hook.
        at: Location,
    },
    /// `Return` before the hook's last instruction.
    #[error("{at}: `Return` before the end of the hook's code")]
    MisplacedReturn {
        /// Where.
        at: Location,
    },
    /// `Return` with other than exactly one value on the stack.
    #[error("{at}: `Return` with {height} values on the stack, expected exactly 1")]
    ReturnHeight {
        /// Where.
        at: Location,
        /// The height.
        height: u32,
    },
    /// Macros are unbalanced or nested too deeply.
    #[error("{at}: {reason}")]
    BadMacro {
        /// Where.
        at: Location,
        /// What is wrong.
        reason: String,
    },
    /// `Var(d)` outside of `d + 1` macros.
    #[error("{at}: `Var({depth})` needs {} enclosing macros, but there are {nesting}", u32::from(*.depth) + 1)]
    BadVar {
        /// Where.
        at: Location,
        /// The operand.
        depth: u16,
        /// Enclosing macros.
        nesting: usize,
    },
    /// A local slot at or over [`crate::limits::MAX_LOCAL_SLOTS`].
    #[error(
        "{at}: local slot {slot} is over the limit of {} slots a code may use",
        crate::limits::MAX_LOCAL_SLOTS
    )]
    BadSlot {
        /// Where.
        at: Location,
        /// The operand.
        slot: u16,
    },
    /// `TypeIs` with bits that name no kind.
    #[error("{at}: `TypeIs` with unknown kind bits {bits:#04x}")]
    BadKinds {
        /// Where.
        at: Location,
        /// The operand.
        bits: u8,
    },
    /// `Call` of a function with a pattern parameter, or `CallRegex` of one
    /// without.
    #[error("{at}: `{instruction}` cannot call `{}`, which {reason}", function.def().qualified_name())]
    BadCall {
        /// Where.
        at: Location,
        /// `Call` or `CallRegex`.
        instruction: &'static str,
        /// The function.
        function: crate::functions::Builtin,
        /// Why not.
        reason: &'static str,
    },
    /// A call whose function id is no builtin's, or whose arity is not
    /// that builtin's.
    #[error("{at}: calls function id {id:#x} popping {arity} values, which is no builtin of this hookc's function table")]
    UnknownCall {
        /// Where.
        at: Location,
        /// The operand's function id.
        id: u16,
        /// The operand's arity.
        arity: u32,
    },
    /// The event index is not sorted or its hook lists are not increasing.
    #[error("{at}: {reason}")]
    BadEvents {
        /// Always [`Location::Events`].
        at: Location,
        /// What is wrong.
        reason: String,
    },
    /// A hook comes before one whose priority should run first (higher, or
    /// lower under [`PriorityOrder::LowerFirst`](crate::bytecode::PriorityOrder)),
    /// or of the same priority and a later layer.
    #[error("{at}: hooks are not in evaluation order (priority in the program's direction, then layer descending)")]
    OutOfOrder {
        /// The hook that should come earlier.
        at: Location,
    },
    /// The debug section is inconsistent with the program.
    #[error("debug information: {at}: {reason}")]
    BadDebug {
        /// The hook it describes (or the program).
        at: Location,
        /// What is wrong.
        reason: String,
    },
}
