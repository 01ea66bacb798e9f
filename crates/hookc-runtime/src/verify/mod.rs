//! The verifier: a [`Program`] becomes a [`VerifiedProgram`] only after every
//! check the VM relies on has passed, whether the program came from the
//! compiler or from an artifact that travelled (SPEC §5). It works like a
//! WebAssembly validator: one forward pass over each hook's code, tracking
//! the operand stack height by abstract interpretation.
//!
//! # What is checked, in order
//!
//! 1. **Table sizes**: every table fits its `u32` indexes and
//!    [`MAX_TABLE_LEN`]; at most [`MAX_HOOKS`] hooks.
//!    Layer names are string indexes, unique.
//! 2. **Paths**: each root is an identifier (the [`crate::bytecode::path::Path`]
//!    invariant), with at most [`MAX_PATH_SEGMENTS`] segments, and no two
//!    paths are equal (the compiler interns them, and the runtime's path
//!    plan keeps one slot per distinct path).
//! 3. **Constants**: nested at most [`MAX_VALUE_DEPTH`] deep.
//! 4. **Sets**: each names a constant that is a list.
//! 5. **Actions**: the type and parameter names are string indexes,
//!    parameter names are unique, and every parameter value's constant,
//!    string and path indexes are in bounds, object keys unique, nesting at
//!    most [`MAX_VALUE_DEPTH`].
//! 6. **Hooks**, in order: id, layer, description and action indexes in
//!    bounds; in evaluation order (priority, then layer, descending);
//!    code ranges inside [`Program::code`], in order and non-overlapping;
//!    `max_stack` at most [`MAX_STACK_DEPTH`]; then the hook's code (below).
//! 7. **Event index**: names are string indexes, sorted by their text and
//!    unique (the runtime binary-searches them); every hook list (and the
//!    wildcard list) holds hook indexes in strictly increasing order.
//! 8. **Debug information**: none, or one entry per hook; string indexes in
//!    bounds; each hook's sub-condition marks inside its code range, in
//!    strictly increasing order (explain traces rely on both).
//! 9. **Regexes** compile under [`crate::limits::MAX_REGEX_SIZE`], and sets
//!    are hashed. (Last: the only expensive step runs on a program already
//!    known to be well formed.)
//!
//! # What a hook's code must satisfy
//!
//! A non-empty code range is verified in one pass, instruction by
//! instruction:
//! - every table index of an operand is in bounds, `TypeIs` has only known
//!   kind bits;
//! - every jump target (`AndShort`, `OrShort`, `Branch`'s `otherwise` and
//!   `end`, `Jump`, `MacroStart`'s `end`) is forward (`> ip`) and at most the
//!   hook's last instruction; `Branch` has `otherwise < end`;
//! - the stack height is the same along every path into an instruction,
//!   never underflows, never exceeds the hook's `max_stack` nor
//!   [`MAX_STACK_DEPTH`]; `MakeList(n)` needs `n` values;
//! - every instruction is reachable (falls through from its predecessor or
//!   is a jump target), so every instruction has one known height;
//! - macros nest properly: each `MacroStart`'s `end` is just past its
//!   matching `MacroNext`, its body leaves exactly one value, nesting is at
//!   most [`MAX_MACRO_NESTING`], `Var(d)` is inside at least `d + 1` macros,
//!   and no jump enters or leaves a macro body;
//! - the last instruction, and only it, is `Return`, popping the only value.
//!
//! Each instruction costs O(1) (a `MakeList` too) and the pass keeps one
//! scratch slot per instruction, so verification is linear in the program.

use crate::bytecode::Kinds;
use crate::bytecode::{HookEntry, Op, ParamValue, Program, TemplatePart};
use crate::eval::value::ConstSet;
use crate::limits::{
    MAX_HOOKS, MAX_MACRO_NESTING, MAX_PATH_SEGMENTS, MAX_STACK_DEPTH, MAX_TABLE_LEN,
    MAX_VALUE_DEPTH,
};
use std::collections::HashSet;
use std::fmt;
use thiserror::Error;

/// Compiles a regex pattern under the size and nesting limits
/// ([`MAX_REGEX_SIZE`](crate::limits::MAX_REGEX_SIZE),
/// [`MAX_REGEX_NESTING`](crate::limits::MAX_REGEX_NESTING)); the error is
/// the `regex` crate's reason, without its framing. The checker and the
/// verifier both compile through here, so a pattern the compiler accepts
/// always loads.
pub fn compile_regex(pattern: &str) -> Result<regex::Regex, String> {
    regex::RegexBuilder::new(pattern)
        .size_limit(crate::limits::MAX_REGEX_SIZE)
        .nest_limit(crate::limits::MAX_REGEX_NESTING)
        .build()
        .map_err(|e| {
            let text = e.to_string();
            let reason = text
                .rsplit_once("error: ")
                .map_or(text.as_str(), |(_, r)| r);
            reason.trim().trim_end_matches('.').to_owned()
        })
}

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
            Location::Events => f.write_str("event index"),
        }
    }
}

/// Why a program was rejected. Every message names where (a [`Location`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// A regex of the table does not compile (or is over the size limit).
    #[error("regex {index} (`{pattern}`) does not compile: {reason}")]
    BadRegex {
        /// Its index.
        index: usize,
        /// The pattern.
        pattern: String,
        /// The `regex` crate's reason.
        reason: String,
    },
    /// A set refers to a constant that is not a list.
    #[error("set {index} refers to constant {konst}, which is not a list")]
    BadSet {
        /// The set's index.
        index: usize,
        /// The constant it names.
        konst: u32,
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
    /// `TypeIs` with bits that name no kind.
    #[error("{at}: `TypeIs` with unknown kind bits {bits:#04x}")]
    BadKinds {
        /// Where.
        at: Location,
        /// The operand.
        bits: u8,
    },
    /// The event index is not sorted or its hook lists are not increasing.
    #[error("{at}: {reason}")]
    BadEvents {
        /// Always [`Location::Events`].
        at: Location,
        /// What is wrong.
        reason: String,
    },
    /// A hook comes before one of higher priority, or of the same priority
    /// and a later layer.
    #[error("{at}: hooks are not in evaluation order (priority, then layer, both descending)")]
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

/// A program that passed verification, with its regexes compiled and its
/// sets hashed. The VM runs only these.
///
/// INVARIANT (verified): every check of the module documentation holds for
/// `program`; `regexes[i]` is `program.regexes[i]` compiled and `sets[i]`
/// is the list `program.consts[program.sets[i]]` hashed. Established by
/// [`verify`], the only constructor; the fields are private and the program
/// is only handed out by shared reference.
#[derive(Debug, Clone)]
pub struct VerifiedProgram {
    program: Program,
    regexes: Vec<regex::Regex>,
    sets: Vec<ConstSet>,
}

impl VerifiedProgram {
    /// The program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Compiled regex `i`.
    pub fn regex(&self, i: u32) -> Option<&regex::Regex> {
        self.regexes.get(i as usize)
    }

    /// Hashed set `i`.
    pub fn set(&self, i: u32) -> Option<&ConstSet> {
        self.sets.get(i as usize)
    }
}

/// Verifies a program (checks in the order of the module documentation;
/// the first failure is returned).
pub fn verify(program: Program) -> Result<VerifiedProgram, VerifyError> {
    check_table_sizes(&program)?;
    check_layers(&program)?;
    check_paths(&program)?;
    check_consts(&program)?;
    check_sets(&program)?;
    check_actions(&program)?;
    check_hooks(&program)?;
    check_events(&program)?;
    check_debug(&program)?;
    let regexes = program
        .regexes
        .iter()
        .enumerate()
        .map(|(index, pattern)| {
            crate::verify::compile_regex(pattern).map_err(|reason| VerifyError::BadRegex {
                index,
                pattern: pattern.clone(),
                reason,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let sets = program
        .sets
        .iter()
        .enumerate()
        .map(|(index, &konst)| match program.consts.get(konst as usize) {
            Some(serde_json::Value::Array(items)) => Ok(ConstSet::new(items)),
            _ => Err(VerifyError::BadSet { index, konst }),
        })
        .collect::<Result<Vec<_>, _>>()?;
    // INVARIANT (verified): every check passed; see `VerifiedProgram`.
    Ok(VerifiedProgram {
        program,
        regexes,
        sets,
    })
}

// ---------------------------------------------------------------------------
// Locations and index checks.

fn hook_id(p: &Program, hook: u32) -> String {
    p.hooks
        .get(hook as usize)
        .and_then(|h| p.strings.get(h.id as usize))
        .cloned()
        .unwrap_or_else(|| format!("#{hook}"))
}

fn hook_loc(p: &Program, hook: u32) -> Location {
    Location::Hook {
        hook,
        id: hook_id(p, hook),
    }
}

fn instr_loc(p: &Program, hook: u32, ip: u32) -> Location {
    Location::Instruction {
        hook,
        id: hook_id(p, hook),
        ip,
    }
}

/// `Ok` if `index` names an entry of a table of `len` entries.
fn in_bounds(
    index: u32,
    len: usize,
    table: &'static str,
    at: impl FnOnce() -> Location,
) -> Result<(), VerifyError> {
    if (index as usize) < len {
        Ok(())
    } else {
        Err(VerifyError::IndexOutOfBounds {
            at: at(),
            table,
            index,
            len,
        })
    }
}

/// A table index as `u32` (table sizes are checked first, so this holds).
fn index_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

// ---------------------------------------------------------------------------
// 1-5: tables.

fn check_table_sizes(p: &Program) -> Result<(), VerifyError> {
    let tables: [(&'static str, usize, usize); 10] = [
        ("strings", p.strings.len(), MAX_TABLE_LEN),
        ("paths", p.paths.len(), MAX_TABLE_LEN),
        ("constants", p.consts.len(), MAX_TABLE_LEN),
        ("regexes", p.regexes.len(), MAX_TABLE_LEN),
        ("sets", p.sets.len(), MAX_TABLE_LEN),
        ("instructions", p.code.len(), MAX_TABLE_LEN),
        ("hooks", p.hooks.len(), MAX_HOOKS.min(MAX_TABLE_LEN)),
        ("actions", p.actions.len(), MAX_TABLE_LEN),
        ("named events", p.events.named.len(), MAX_TABLE_LEN),
        ("layers", p.layers.len(), MAX_TABLE_LEN),
    ];
    for (table, len, limit) in tables {
        // MAX_TABLE_LEN < u32::MAX, so every index of a table below the limit fits u32.
        if len > limit {
            return Err(VerifyError::TableTooLarge { table, len, limit });
        }
    }
    Ok(())
}

fn check_paths(p: &Program) -> Result<(), VerifyError> {
    let mut seen = std::collections::HashSet::with_capacity(p.paths.len());
    for (i, path) in p.paths.iter().enumerate() {
        if !crate::bytecode::path::is_identifier(path.root_name()) {
            return Err(VerifyError::BadPathRoot {
                path: index_u32(i),
                root: path.root_name().to_owned(),
            });
        }
        if path.segments().len() > MAX_PATH_SEGMENTS {
            return Err(VerifyError::TableTooLarge {
                table: "segments in one path",
                len: path.segments().len(),
                limit: MAX_PATH_SEGMENTS,
            });
        }
        // INVARIANT (interned paths): `context::PathPlan` gives each distinct
        // path one slot; a second equal path would never be filled.
        if !seen.insert(path) {
            return Err(VerifyError::Duplicate {
                at: Location::Path(index_u32(i)),
                what: "path",
                name: path.to_string(),
            });
        }
    }
    Ok(())
}

fn check_consts(p: &Program) -> Result<(), VerifyError> {
    // One explicit stack for all constants: no recursion over the values.
    let mut stack: Vec<(&serde_json::Value, usize)> = Vec::new();
    for (i, value) in p.consts.iter().enumerate() {
        stack.push((value, 1));
        while let Some((v, depth)) = stack.pop() {
            if depth > MAX_VALUE_DEPTH {
                return Err(VerifyError::TooDeep {
                    at: Location::Const(index_u32(i)),
                    limit: MAX_VALUE_DEPTH,
                });
            }
            match v {
                serde_json::Value::Array(items) => {
                    stack.extend(items.iter().map(|item| (item, depth + 1)));
                }
                serde_json::Value::Object(map) => {
                    stack.extend(map.values().map(|item| (item, depth + 1)));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

fn check_sets(p: &Program) -> Result<(), VerifyError> {
    for (index, &konst) in p.sets.iter().enumerate() {
        in_bounds(konst, p.consts.len(), "constant", || {
            Location::Set(index_u32(index))
        })?;
        if !matches!(
            p.consts.get(konst as usize),
            Some(serde_json::Value::Array(_))
        ) {
            return Err(VerifyError::BadSet { index, konst });
        }
    }
    Ok(())
}

fn check_actions(p: &Program) -> Result<(), VerifyError> {
    let mut stack: Vec<(&ParamValue, usize)> = Vec::new();
    let mut names: HashSet<&str> = HashSet::new();
    for (a, action) in p.actions.iter().enumerate() {
        let at = || Location::Action(index_u32(a));
        let string = |i: u32| -> Result<&str, VerifyError> {
            in_bounds(i, p.strings.len(), "string", at)?;
            Ok(p.string(i))
        };
        string(action.kind)?;
        names.clear();
        for (name, value) in &action.params {
            let name = string(*name)?;
            if !names.insert(name) {
                return Err(VerifyError::Duplicate {
                    at: at(),
                    what: "parameter",
                    name: name.to_owned(),
                });
            }
            stack.push((value, 1));
        }
        while let Some((value, depth)) = stack.pop() {
            if depth > MAX_VALUE_DEPTH {
                return Err(VerifyError::TooDeep {
                    at: at(),
                    limit: MAX_VALUE_DEPTH,
                });
            }
            match value {
                ParamValue::Const(k) => in_bounds(*k, p.consts.len(), "constant", at)?,
                ParamValue::Template(parts) => {
                    for part in parts {
                        match part {
                            TemplatePart::Lit(s) => in_bounds(*s, p.strings.len(), "string", at)?,
                            TemplatePart::Path(q) => in_bounds(*q, p.paths.len(), "path", at)?,
                        }
                    }
                }
                ParamValue::List(items) => {
                    stack.extend(items.iter().map(|item| (item, depth + 1)));
                }
                ParamValue::Object(entries) => {
                    let mut keys: HashSet<&str> = HashSet::with_capacity(entries.len());
                    for (key, item) in entries {
                        let key = string(*key)?;
                        if !keys.insert(key) {
                            return Err(VerifyError::Duplicate {
                                at: at(),
                                what: "object key",
                                name: key.to_owned(),
                            });
                        }
                        stack.push((item, depth + 1));
                    }
                }
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// 6: hooks and their code.

fn check_layers(p: &Program) -> Result<(), VerifyError> {
    let mut seen = std::collections::HashSet::with_capacity(p.layers.len());
    for (i, &name) in p.layers.iter().enumerate() {
        in_bounds(name, p.strings.len(), "string", || Location::Program)?;
        if !seen.insert(p.string(name)) {
            return Err(VerifyError::Duplicate {
                at: Location::Program,
                what: "layer",
                name: format!("{} (layer {i})", p.string(name)),
            });
        }
    }
    Ok(())
}

fn check_hooks(p: &Program) -> Result<(), VerifyError> {
    let mut scratch: Vec<Option<Join>> = Vec::new();
    let mut prev_end: u32 = 0;
    let mut prev_key: Option<(i64, u32)> = None;
    for (h, entry) in p.hooks.iter().enumerate() {
        let hook = index_u32(h);
        let at = || hook_loc(p, hook);
        in_bounds(entry.id, p.strings.len(), "string", at)?;
        in_bounds(entry.layer, p.layers.len(), "layer", at)?;
        // INVARIANT (evaluation order): the runtime tries hooks in index
        // order, which must be priority, then layer, both descending.
        let key = (entry.priority, entry.layer);
        if prev_key.is_some_and(|prev| prev < key) {
            return Err(VerifyError::OutOfOrder { at: at() });
        }
        prev_key = Some(key);
        if let Some(d) = entry.description {
            in_bounds(d, p.strings.len(), "string", at)?;
        }
        in_bounds(entry.action, p.actions.len(), "action", at)?;
        let (start, end) = entry.code;
        let bad_range = |reason| VerifyError::BadCodeRange {
            at: at(),
            start,
            end,
            reason,
        };
        if start > end {
            return Err(bad_range("is reversed"));
        }
        if end as usize > p.code.len() {
            return Err(bad_range("runs past the end of the code"));
        }
        if start < prev_end {
            return Err(bad_range(
                "overlaps or precedes the previous hook's code (ranges must be in hook order)",
            ));
        }
        prev_end = end;
        if entry.max_stack as usize > MAX_STACK_DEPTH {
            return Err(VerifyError::MaxStack {
                at: at(),
                declared: entry.max_stack,
                reason: "the limit is",
                needed: MAX_STACK_DEPTH as u64,
            });
        }
        let needed = check_code(p, hook, entry, &mut scratch)?;
        if needed > entry.max_stack {
            return Err(VerifyError::MaxStack {
                at: at(),
                declared: entry.max_stack,
                reason: "its code needs",
                needed: u64::from(needed),
            });
        }
    }
    Ok(())
}

/// What the verifier knows about an instruction that a jump targets.
#[derive(Debug, Clone, Copy)]
struct Join {
    /// The stack height on arrival.
    height: u32,
    /// The innermost macro frame around the jump (0: none).
    frame: u32,
    /// The jumping instruction.
    from: u32,
}

/// An open macro.
#[derive(Debug, Clone, Copy)]
struct Frame {
    /// Unique within the hook (0 is "no macro").
    id: u32,
    /// The `MacroStart`.
    start: u32,
    /// Stack height at the body's start (the range popped).
    base: u32,
    /// Where its `MacroNext` must be (`end - 1`).
    next: u32,
}

/// The code of one hook: `p.code[start..end]`, a range already checked to be
/// inside the code. Returns the deepest stack height reached.
fn check_code(
    p: &Program,
    hook: u32,
    entry: &HookEntry,
    scratch: &mut Vec<Option<Join>>,
) -> Result<u32, VerifyError> {
    let (start, end) = entry.code;
    let Some(ops) = p.code.get(start as usize..end as usize) else {
        return Err(VerifyError::BadCodeRange {
            at: hook_loc(p, hook),
            start,
            end,
            reason: "runs past the end of the code",
        });
    };
    let Some(last) = end.checked_sub(1).filter(|_| start < end) else {
        return Ok(0); // no condition: always matches
    };
    if !matches!(ops.last(), Some(Op::Return)) {
        return Err(VerifyError::MissingReturn {
            at: hook_loc(p, hook),
        });
    }
    scratch.clear();
    scratch.resize(ops.len(), None);
    let mut cx = CodeCx {
        p,
        hook,
        start,
        last,
        scratch,
        frames: Vec::new(),
        next_frame: 1,
    };
    // INVARIANT (stack height): `height` is `Some(h)` when the previous
    // instruction falls through with `h` values, `None` after an
    // unconditional transfer (`Jump`, `Return`).
    let mut height: Option<u32> = Some(0);
    let mut max: u32 = 0;
    for (ip, op) in (start..end).zip(ops) {
        let at = || instr_loc(p, hook, ip);
        let frame = cx.frames.last().map_or(0, |f| f.id);
        let joined = cx.scratch.get((ip - start) as usize).copied().flatten();
        let h = match (height, joined) {
            (None, None) => return Err(VerifyError::Unreachable { at: at() }),
            (Some(h), None) => h,
            (fall, Some(j)) => {
                if j.frame != frame {
                    return Err(VerifyError::BadJump {
                        at: instr_loc(p, hook, j.from),
                        target: ip,
                        reason: "enters or leaves a macro body",
                    });
                }
                if let Some(h) = fall {
                    if h != j.height {
                        return Err(VerifyError::StackMismatch {
                            at: at(),
                            expected: j.height,
                            found: h,
                            context: format!("on the jump from instruction {}", j.from),
                        });
                    }
                }
                j.height
            }
        };
        if let Some(f) = cx.frames.last() {
            if f.next == ip && !matches!(op, Op::MacroNext) {
                return Err(VerifyError::BadMacro {
                    at: at(),
                    reason: format!(
                        "the macro started at instruction {} ends here, but this is not `MacroNext`",
                        f.start
                    ),
                });
            }
        }
        cx.operands(ip, op)?;
        let (pops, pushes) = op.stack_effect();
        // `_else`: a location names the hook by its id, a `String`; build
        // it only for an error (eagerly, it was two allocations per
        // instruction of every verified program).
        let below = h
            .checked_sub(pops)
            .ok_or_else(|| VerifyError::StackUnderflow {
                at: at(),
                needs: pops,
                height: h,
            })?;
        let after = below
            .checked_add(pushes)
            .filter(|&a| a as usize <= MAX_STACK_DEPTH)
            .ok_or_else(|| VerifyError::StackTooDeep {
                at: at(),
                limit: MAX_STACK_DEPTH,
            })?;
        max = max.max(after);
        height = Some(after);
        match *op {
            Op::AndShort(t) | Op::OrShort(t) => cx.join(ip, t, after, frame)?,
            Op::Branch { otherwise, end } => {
                if otherwise >= end {
                    return Err(VerifyError::BadJump {
                        at: at(),
                        target: otherwise,
                        reason: "(`otherwise`) is not before `end`",
                    });
                }
                cx.join(ip, otherwise, below, frame)?;
                // Not a bool: an error value is pushed and the jump goes to `end`.
                cx.join(ip, end, after + 1, frame)?;
                max = max.max(after + 1);
            }
            Op::Jump(t) => {
                cx.join(ip, t, after, frame)?;
                height = None;
            }
            Op::MacroStart { end, .. } => {
                if cx.frames.len() >= MAX_MACRO_NESTING {
                    return Err(VerifyError::BadMacro {
                        at: at(),
                        reason: format!("macros nested deeper than {MAX_MACRO_NESTING}"),
                    });
                }
                // The body needs at least one instruction before `MacroNext`.
                let next = end.checked_sub(1).filter(|&n| n > ip.saturating_add(1));
                let Some(next) = next else {
                    return Err(VerifyError::BadJump {
                        at: at(),
                        target: end,
                        reason: "(the macro's end) leaves no room for a body and `MacroNext`",
                    });
                };
                if let Some(parent) = cx.frames.last() {
                    if next >= parent.next {
                        return Err(VerifyError::BadMacro {
                            at: at(),
                            reason: format!(
                                "the macro ends at {end}, outside the body of the macro started at instruction {}",
                                parent.start
                            ),
                        });
                    }
                }
                // Empty or not iterable: the result is pushed and the jump goes to `end`.
                cx.join(ip, end, after + 1, frame)?;
                max = max.max(after + 1);
                let id = cx.next_frame;
                // INVARIANT (frame ids): unique within the hook: there are
                // fewer `MacroStart`s than MAX_TABLE_LEN < u32::MAX.
                cx.next_frame = id.saturating_add(1);
                cx.frames.push(Frame {
                    id,
                    start: ip,
                    base: after,
                    next,
                });
            }
            Op::MacroNext => {
                let Some(f) = cx.frames.pop() else {
                    return Err(VerifyError::BadMacro {
                        at: at(),
                        reason: "`MacroNext` outside any macro".to_owned(),
                    });
                };
                if f.next != ip {
                    return Err(VerifyError::BadMacro {
                        at: at(),
                        reason: format!(
                            "`MacroNext` here, but the macro started at instruction {} ends at {}",
                            f.start,
                            u64::from(f.next) + 1
                        ),
                    });
                }
                if h != f.base + 1 {
                    return Err(VerifyError::StackMismatch {
                        at: at(),
                        expected: f.base + 1,
                        found: h,
                        context: format!(
                            "(one value over the body's start) for the body of the macro started at instruction {}",
                            f.start
                        ),
                    });
                }
            }
            Op::Return => {
                if ip != last {
                    return Err(VerifyError::MisplacedReturn { at: at() });
                }
                if h != 1 {
                    return Err(VerifyError::ReturnHeight {
                        at: at(),
                        height: h,
                    });
                }
                height = None;
            }
            _ => {}
        }
    }
    // Every frame closes before `Return`: each `next` is below its parent's,
    // the outermost below `last`, and `MacroNext` is required at `next`.
    Ok(max)
}

/// State of one hook's code check.
struct CodeCx<'p, 's> {
    p: &'p Program,
    hook: u32,
    start: u32,
    last: u32,
    /// `scratch[ip - start]`: what jumps into `ip` require.
    scratch: &'s mut Vec<Option<Join>>,
    /// Open macros, innermost last.
    frames: Vec<Frame>,
    next_frame: u32,
}

impl CodeCx<'_, '_> {
    fn at(&self, ip: u32) -> Location {
        instr_loc(self.p, self.hook, ip)
    }

    /// Records a jump from `from` to `target` arriving with `height` values.
    fn join(&mut self, from: u32, target: u32, height: u32, frame: u32) -> Result<(), VerifyError> {
        let bad = |reason| VerifyError::BadJump {
            at: instr_loc(self.p, self.hook, from),
            target,
            reason,
        };
        if target <= from {
            return Err(bad("is not forward"));
        }
        if target > self.last {
            return Err(bad("is past the hook's last instruction"));
        }
        let Some(slot) = self.scratch.get_mut((target - self.start) as usize) else {
            return Err(bad("is past the hook's last instruction"));
        };
        match slot {
            None => {
                *slot = Some(Join {
                    height,
                    frame,
                    from,
                });
                Ok(())
            }
            Some(j) if j.frame != frame => Err(bad("enters or leaves a macro body")),
            Some(j) if j.height != height => Err(VerifyError::StackMismatch {
                at: instr_loc(self.p, self.hook, from),
                expected: j.height,
                found: height,
                context: format!(
                    "on the jump from instruction {} to the same target {target}",
                    j.from
                ),
            }),
            Some(_) => Ok(()),
        }
    }

    /// The operands' table indexes, `Var` depths and `TypeIs` bits.
    fn operands(&self, ip: u32, op: &Op) -> Result<(), VerifyError> {
        let p = self.p;
        let at = || self.at(ip);
        let string = |i| in_bounds(i, p.strings.len(), "string", at);
        let path = |i| in_bounds(i, p.paths.len(), "path", at);
        let konst = |i| in_bounds(i, p.consts.len(), "constant", at);
        let set = |i| in_bounds(i, p.sets.len(), "set", at);
        let regex = |i| in_bounds(i, p.regexes.len(), "regex", at);
        match *op {
            Op::Const(i) => konst(i),
            Op::Path(i) | Op::HasPath(i) => path(i),
            Op::Field(i) | Op::HasField(i) => string(i),
            Op::InSet(i) => set(i),
            Op::Matches(i) => regex(i),
            Op::PathCmpConst {
                path: q, konst: k, ..
            } => path(q).and_then(|()| konst(k)),
            Op::PathInSet { path: q, set: s } => path(q).and_then(|()| set(s)),
            Op::PathMatches { path: q, regex: r } => path(q).and_then(|()| regex(r)),
            Op::Var(depth) => {
                if usize::from(depth) < self.frames.len() {
                    Ok(())
                } else {
                    Err(VerifyError::BadVar {
                        at: at(),
                        depth,
                        nesting: self.frames.len(),
                    })
                }
            }
            Op::TypeIs(bits) => {
                if Kinds::from_bits(bits).bits() == bits {
                    Ok(())
                } else {
                    Err(VerifyError::BadKinds { at: at(), bits })
                }
            }
            _ => Ok(()),
        }
    }
}

// ---------------------------------------------------------------------------
// 7: the event index.

fn check_events(p: &Program) -> Result<(), VerifyError> {
    let bad = |reason: String| VerifyError::BadEvents {
        at: Location::Events,
        reason,
    };
    let hooks_list = |what: &dyn Fn() -> String, list: &[u32]| -> Result<(), VerifyError> {
        if list.len() > MAX_TABLE_LEN {
            return Err(bad(format!("the hook list of {} is too long", what())));
        }
        let mut prev: Option<u32> = None;
        for &h in list {
            in_bounds(h, p.hooks.len(), "hook", || Location::Events)?;
            if prev.is_some_and(|q| q >= h) {
                return Err(bad(format!(
                    "the hooks of {} are not in increasing order (hook {h} after hook {})",
                    what(),
                    prev.unwrap_or(0)
                )));
            }
            prev = Some(h);
        }
        Ok(())
    };
    let mut prev: Option<&str> = None;
    for (name, list) in &p.events.named {
        in_bounds(*name, p.strings.len(), "string", || Location::Events)?;
        let text = p.string(*name);
        if let Some(q) = prev {
            if q == text {
                return Err(VerifyError::Duplicate {
                    at: Location::Events,
                    what: "event",
                    name: text.to_owned(),
                });
            }
            if q > text {
                return Err(bad(format!(
                    "event names are not sorted (`{text}` after `{q}`)"
                )));
            }
        }
        prev = Some(text);
        hooks_list(&|| format!("event `{text}`"), list)?;
    }
    hooks_list(&|| "the wildcard".to_owned(), &p.events.wildcard)
}

// ---------------------------------------------------------------------------
// 8: debug information.

fn check_debug(p: &Program) -> Result<(), VerifyError> {
    let hooks = &p.debug.hooks;
    if !hooks.is_empty() && hooks.len() != p.hooks.len() {
        return Err(VerifyError::BadDebug {
            at: Location::Program,
            reason: format!(
                "{} entries for {} hooks (expected none or one per hook)",
                hooks.len(),
                p.hooks.len()
            ),
        });
    }
    for (i, (debug, hook)) in hooks.iter().zip(&p.hooks).enumerate() {
        let at = || hook_loc(p, index_u32(i));
        in_bounds(debug.at, p.strings.len(), "string", at)?;
        let mut prev: Option<u32> = None;
        for mark in &debug.marks {
            in_bounds(mark.text, p.strings.len(), "string", at)?;
            in_bounds(mark.at, p.strings.len(), "string", at)?;
            let inside = (hook.code.0..hook.code.1).contains(&mark.op);
            let ordered = prev.is_none_or(|q| q < mark.op);
            if !inside || !ordered {
                return Err(VerifyError::BadDebug {
                    at: at(),
                    reason: format!(
                        "sub-condition at instruction {} is {}",
                        mark.op,
                        if inside {
                            "not after the previous one"
                        } else {
                            "outside the hook's code"
                        }
                    ),
                });
            }
            prev = Some(mark.op);
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
pub(crate) mod tests {
    use super::*;
    use crate::bytecode::path::{Path, Segment};
    use crate::bytecode::{ActionEntry, CmpOp, EventIndex, MacroOp};
    use serde_json::json;

    /// A valid program that uses every instruction, every constant kind and
    /// every parameter value kind (shared with the artifact tests).
    pub(crate) fn sample() -> Program {
        use Op::*;
        let strings = [
            "h0",
            "h1",
            "h2",
            "retry",
            "max_attempts",
            "code",
            "error",
            "h3",
            "before_step",
            "msg: ",
            "desc",
            "k",
            "builtin",
            "directive",
        ];
        let path = |root: &str, segs: &[Segment]| {
            segs.iter()
                .fold(crate::bytecode::path::Path::root(root), |p, s| {
                    p.child(s.clone())
                })
        };
        let field = |s: &str| Segment::Field(s.to_owned());
        #[rustfmt::skip]
        let code = vec![
            // hook 0: 0..9
            PathCmpConst { path: 0, konst: 0, op: CmpOp::Eq },
            AndShort(5),
            PathCmpConst { path: 1, konst: 1, op: CmpOp::Gt },
            Not,
            AndJoin,
            OrShort(8),
            PathMatches { path: 0, regex: 0 },
            OrJoin,
            Return,
            // hook 1: 9..25
            Path(2),
            MacroStart { kind: MacroOp::Exists, end: 18 },
            Path(2),
            MacroStart { kind: MacroOp::All, end: 17 },
            Var(1),
            Var(0),
            Cmp(CmpOp::Ne),
            MacroNext,
            MacroNext,
            Branch { otherwise: 21, end: 24 },
            Const(3),
            Jump(24),
            Null,
            TypeIs(0x21),
            Size,
            Return,
            // hook 2: 25..25 (no condition); hook 3: 25..67
            True, False, Null, Const(4), MakeList(4),
            Path(3), Field(5), Const(1), Index,
            HasPath(4), Path(0), HasField(11), Neg, Add, Sub,
            Const(1), Mul, Const(1), Div, Const(1), Rem,
            Const(2), In, InSet(0),
            Path(0), Contains, Path(0), StartsWith, Path(0), EndsWith,
            Matches(0),
            PathInSet { path: 0, set: 0 },
            Cmp(CmpOp::Lt), Cmp(CmpOp::Le),
            PathCmpConst { path: 1, konst: 4, op: CmpOp::Ge },
            Cmp(CmpOp::Eq),
            Const(2),
            MacroStart { kind: MacroOp::ExistsOne, end: 65 },
            Var(0),
            MacroNext,
            Cmp(CmpOp::Gt),
            Return,
        ];
        let hook = |id, priority, layer, description, code, max_stack, action| HookEntry {
            id,
            priority,
            layer,
            description,
            code,
            max_stack,
            action,
        };
        Program {
            strings: strings.iter().map(|s| (*s).to_owned()).collect(),
            paths: vec![
                path("error", &[field("code")]),
                path("event", &[field("tokens")]),
                path("items", &[]),
                path("error", &[field("headers"), field("retry-after")]),
                path("items", &[Segment::Index(0)]),
            ],
            consts: vec![
                json!("x"),
                json!(5),
                json!(["a", "b"]),
                json!({"k": [1, 2.5, null, true, false, "s", -0.0], "big": u64::MAX, "neg": -3,
                       "a": {"z": 1, "b": 2}}),
                json!(1.5),
            ],
            regexes: vec!["^rate".to_owned()],
            sets: vec![2],
            layers: vec![12, 13],
            debug: crate::bytecode::DebugInfo::default(),
            code,
            hooks: vec![
                hook(0, 10, 1, Some(10), (0, 9), 2, 0),
                hook(1, 5, 0, None, (9, 25), 2, 1),
                hook(2, 0, 1, None, (25, 25), 0, 1),
                hook(7, -4, 1, None, (25, 67), 4, 0),
            ],
            actions: vec![
                ActionEntry {
                    kind: 3,
                    params: vec![
                        (4, ParamValue::Const(1)),
                        (
                            6,
                            ParamValue::Template(vec![TemplatePart::Lit(9), TemplatePart::Path(0)]),
                        ),
                        (
                            5,
                            ParamValue::List(vec![
                                ParamValue::Const(0),
                                ParamValue::Template(vec![TemplatePart::Path(1)]),
                                ParamValue::Object(vec![(11, ParamValue::Const(3))]),
                            ]),
                        ),
                    ],
                },
                ActionEntry {
                    kind: 3,
                    params: vec![],
                },
            ],
            events: EventIndex {
                named: vec![(8, vec![0, 2, 3]), (6, vec![0, 1, 3])],
                wildcard: vec![0, 3],
            },
        }
    }

    /// A program of one hook with this code (tables from [`sample`]).
    fn one_hook(code: Vec<Op>, max_stack: u32) -> Program {
        let mut p = sample();
        let end = u32::try_from(code.len()).unwrap();
        p.code = code;
        p.hooks.truncate(1);
        p.hooks[0].code = (0, end);
        p.hooks[0].max_stack = max_stack;
        p.events = EventIndex::default();
        p
    }

    fn err(p: Program) -> VerifyError {
        verify(p).expect_err("should be rejected")
    }

    fn msg(p: Program) -> String {
        err(p).to_string()
    }

    #[test]
    fn the_sample_verifies() {
        let v = verify(sample()).unwrap();
        assert!(v.regex(0).unwrap().is_match("rate_limited"));
        assert!(v.set(0).is_some() && v.set(1).is_none());
        assert_eq!(v.program(), &sample());
    }

    #[test]
    fn every_opcode_is_in_the_sample() {
        let names: HashSet<String> = sample()
            .code
            .iter()
            .map(|op| {
                let s = format!("{op:?}");
                s.split(|c: char| !c.is_alphanumeric())
                    .next()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        for (_, name) in crate::artifact::OPCODES {
            assert!(names.contains(*name), "{name} missing from the sample");
        }
    }

    #[test]
    fn out_of_bounds_indexes_of_every_kind() {
        type Mutation = Box<dyn Fn(&mut Program)>;
        let cases: Vec<(&str, Mutation)> = vec![
            (
                "constant index 99",
                Box::new(|p| p.code[19] = Op::Const(99)),
            ),
            ("path index 99", Box::new(|p| p.code[9] = Op::Path(99))),
            ("path index 99", Box::new(|p| p.code[34] = Op::HasPath(99))),
            ("string index 99", Box::new(|p| p.code[31] = Op::Field(99))),
            (
                "string index 99",
                Box::new(|p| p.code[36] = Op::HasField(99)),
            ),
            ("set index 99", Box::new(|p| p.code[48] = Op::InSet(99))),
            ("regex index 99", Box::new(|p| p.code[55] = Op::Matches(99))),
            (
                "constant index 99",
                Box::new(|p| {
                    p.code[0] = Op::PathCmpConst {
                        path: 0,
                        konst: 99,
                        op: CmpOp::Eq,
                    }
                }),
            ),
            (
                "path index 99",
                Box::new(|p| {
                    p.code[0] = Op::PathCmpConst {
                        path: 99,
                        konst: 0,
                        op: CmpOp::Eq,
                    }
                }),
            ),
            (
                "set index 99",
                Box::new(|p| p.code[56] = Op::PathInSet { path: 0, set: 99 }),
            ),
            (
                "path index 99",
                Box::new(|p| p.code[56] = Op::PathInSet { path: 99, set: 0 }),
            ),
            (
                "regex index 99",
                Box::new(|p| p.code[6] = Op::PathMatches { path: 0, regex: 99 }),
            ),
            ("constant index 99", Box::new(|p| p.sets[0] = 99)),
            ("string index 99", Box::new(|p| p.hooks[1].id = 99)),
            (
                "string index 99",
                Box::new(|p| p.hooks[1].description = Some(99)),
            ),
            ("action index 99", Box::new(|p| p.hooks[1].action = 99)),
            ("string index 99", Box::new(|p| p.actions[0].kind = 99)),
            (
                "string index 99",
                Box::new(|p| p.actions[0].params[0].0 = 99),
            ),
            (
                "constant index 99",
                Box::new(|p| p.actions[0].params[0].1 = ParamValue::Const(99)),
            ),
            (
                "string index 99",
                Box::new(|p| {
                    p.actions[0].params[1].1 = ParamValue::Template(vec![TemplatePart::Lit(99)])
                }),
            ),
            (
                "path index 99",
                Box::new(|p| {
                    p.actions[0].params[1].1 = ParamValue::Template(vec![TemplatePart::Path(99)])
                }),
            ),
            (
                "string index 99",
                Box::new(|p| {
                    p.actions[0].params[2].1 =
                        ParamValue::List(vec![ParamValue::Object(vec![(99, ParamValue::Const(0))])])
                }),
            ),
            ("string index 99", Box::new(|p| p.events.named[0].0 = 99)),
            ("hook index 99", Box::new(|p| p.events.named[0].1.push(99))),
            ("hook index 4", Box::new(|p| p.events.wildcard.push(4))),
        ];
        for (i, (expected, mutate)) in cases.iter().enumerate() {
            let mut p = sample();
            mutate(&mut p);
            let m = msg(p);
            assert!(m.contains(expected), "case {i}: {m}");
            assert!(m.contains("out of bounds"), "case {i}: {m}");
        }
    }

    #[test]
    fn messages_name_the_hook_and_instruction() {
        let mut p = sample();
        p.code[19] = Op::Const(99);
        assert_eq!(
            msg(p),
            "hook 1 (`h1`), instruction 19: constant index 99 is out of bounds (the program has 5)"
        );
    }

    #[test]
    fn jumps_must_be_forward_and_inside_the_hook() {
        let mut p = sample();
        p.code[1] = Op::AndShort(0);
        assert_eq!(
            msg(p),
            "hook 0 (`h0`), instruction 1: jump target 0 is not forward"
        );
        let mut p = sample();
        p.code[1] = Op::AndShort(1);
        assert!(msg(p).contains("is not forward"));
        let mut p = sample();
        p.code[5] = Op::OrShort(9); // hook 0 is 0..9: 9 is hook 1's
        assert_eq!(
            msg(p),
            "hook 0 (`h0`), instruction 5: jump target 9 is past the hook's last instruction"
        );
        let mut p = sample();
        p.code[20] = Op::Jump(25);
        assert!(msg(p).contains("past the hook's last instruction"));
        let mut p = sample();
        p.code[18] = Op::Branch {
            otherwise: 24,
            end: 21,
        };
        assert!(msg(p).contains("is not before `end`"));
        let mut p = sample();
        p.code[18] = Op::Branch {
            otherwise: 17,
            end: 24,
        };
        assert!(msg(p).contains("jump target 17 is not forward"));
    }

    #[test]
    fn joins_must_agree_on_the_stack_height() {
        // Jumping to the `AndJoin` (height 2 on fall-through, 1 on the jump).
        let mut p = sample();
        p.code[1] = Op::AndShort(4);
        assert_eq!(
            msg(p),
            "hook 0 (`h0`), instruction 4: stack height 2 here, but 1 on the jump from instruction 1"
        );
        // Two jumps to one target with different heights.
        let code = vec![
            Op::True,
            Op::AndShort(4), // height 1 at 4
            Op::True,
            Op::AndShort(4), // height 2 at 4
            Op::Return,
        ];
        assert!(matches!(
            err(one_hook(code, 2)),
            VerifyError::StackMismatch {
                expected: 1,
                found: 2,
                ..
            }
        ));
        // The then-branch of a `?:` falling into the else-branch.
        let mut p = sample();
        p.code[20] = Op::Null; // replaces Jump(24)
        p.code[21] = Op::Not;
        assert!(matches!(err(p), VerifyError::StackMismatch { .. }));
    }

    #[test]
    fn underflow_missing_and_misplaced_return() {
        let mut p = sample();
        p.code[0] = Op::Not;
        assert_eq!(
            msg(p),
            "hook 0 (`h0`), instruction 0: pops 1 values but the stack holds 0"
        );
        let mut p = sample();
        p.code[29] = Op::MakeList(5);
        assert!(matches!(
            err(p),
            VerifyError::StackUnderflow {
                needs: 5,
                height: 4,
                ..
            }
        ));
        let mut p = sample();
        p.code[8] = Op::Not;
        assert_eq!(msg(p), "hook 0 (`h0`): code does not end with `Return`");
        let mut p = sample();
        p.code[3] = Op::Return;
        assert_eq!(
            msg(p),
            "hook 0 (`h0`), instruction 3: `Return` before the end of the hook's code"
        );
        assert!(matches!(
            err(one_hook(vec![Op::True, Op::True, Op::Return], 2)),
            VerifyError::ReturnHeight { height: 2, .. }
        ));
        assert!(matches!(
            err(one_hook(vec![Op::Return], 0)),
            VerifyError::StackUnderflow { .. }
        ));
    }

    #[test]
    fn unreachable_code_is_rejected() {
        let mut p = sample();
        p.code[18] = Op::Branch {
            otherwise: 22,
            end: 24,
        }; // 21 now unreachable
        assert!(
            matches!(err(p), VerifyError::Unreachable { .. }),
            "{:?}",
            err(sample())
        );
        let code = vec![Op::True, Op::Jump(3), Op::Not, Op::Return];
        assert!(matches!(
            err(one_hook(code, 1)),
            VerifyError::Unreachable { .. }
        ));
    }

    #[test]
    fn macros_must_nest() {
        // MacroNext missing where the inner macro ends.
        let mut p = sample();
        p.code[16] = Op::Not;
        assert!(msg(p).contains("ends here, but this is not `MacroNext`"));
        // MacroNext outside any macro.
        let mut p = sample();
        p.code[3] = Op::MacroNext;
        assert!(msg(p).contains("`MacroNext` outside any macro"));
        // An inner macro ending outside its parent.
        let mut p = sample();
        p.code[12] = Op::MacroStart {
            kind: MacroOp::All,
            end: 19,
        };
        assert!(msg(p).contains("outside the body of the macro started at instruction 10"));
        // MacroNext before the declared end.
        let code = vec![
            Op::Path(2),
            Op::MacroStart {
                kind: MacroOp::All,
                end: 5,
            },
            Op::Var(0),
            Op::MacroNext,
            Op::Not,
            Op::Return,
        ];
        assert!(msg(one_hook(code, 1)).contains("ends at 5"));
        // No room for a body.
        let code = vec![
            Op::Path(2),
            Op::MacroStart {
                kind: MacroOp::All,
                end: 3,
            },
            Op::MacroNext,
            Op::Return,
        ];
        assert!(msg(one_hook(code, 1)).contains("leaves no room"));
        // A body leaving two values.
        let code = vec![
            Op::Path(2),
            Op::MacroStart {
                kind: MacroOp::All,
                end: 5,
            },
            Op::Var(0),
            Op::Var(0),
            Op::MacroNext,
            Op::Return,
        ];
        assert!(matches!(
            err(one_hook(code, 2)),
            VerifyError::StackMismatch {
                expected: 1,
                found: 2,
                ..
            }
        ));
    }

    #[test]
    fn jumps_may_not_cross_macro_bodies() {
        // Out of a body, past its MacroNext.
        let code = vec![
            Op::Path(2),
            Op::MacroStart {
                kind: MacroOp::Exists,
                end: 5,
            },
            Op::Var(0),
            Op::AndShort(5),
            Op::MacroNext,
            Op::Return,
        ];
        assert!(msg(one_hook(code, 1)).contains("enters or leaves a macro body"));
        // Into a body from before its MacroStart.
        let code = vec![
            Op::True,
            Op::AndShort(4),
            Op::Path(2),
            Op::MacroStart {
                kind: MacroOp::Exists,
                end: 6,
            },
            Op::Var(0),
            Op::MacroNext,
            Op::Return,
        ];
        assert_eq!(
            msg(one_hook(code, 2)),
            "hook 0 (`h0`), instruction 1: jump target 4 enters or leaves a macro body"
        );
        // To the body's MacroNext from inside: fine.
        let code = vec![
            Op::Path(2),
            Op::MacroStart {
                kind: MacroOp::Exists,
                end: 6,
            },
            Op::Var(0),
            Op::AndShort(5),
            Op::True,
            Op::MacroNext,
            Op::Return,
        ];
        let m = msg(one_hook(code, 2)); // AndShort leaves 1, fall-through 2
        assert!(m.contains("stack height"), "{m}");
        let code = vec![
            Op::Path(2),
            Op::MacroStart {
                kind: MacroOp::Exists,
                end: 7,
            },
            Op::Var(0),
            Op::AndShort(6),
            Op::True,
            Op::AndJoin,
            Op::MacroNext,
            Op::Return,
        ];
        verify(one_hook(code, 2)).unwrap();
    }

    #[test]
    fn var_needs_enclosing_macros() {
        let mut p = sample();
        p.code[6] = Op::Var(0);
        assert_eq!(
            msg(p),
            "hook 0 (`h0`), instruction 6: `Var(0)` needs 1 enclosing macros, but there are 0"
        );
        let mut p = sample();
        p.code[13] = Op::Var(2);
        assert!(matches!(
            err(p),
            VerifyError::BadVar {
                depth: 2,
                nesting: 2,
                ..
            }
        ));
    }

    fn nested_macros(depth: u32) -> Vec<Op> {
        let mut code = Vec::new();
        for i in 0..depth {
            code.push(Op::Path(2));
            // MacroNext of level i (0 = outermost) is at 3*depth - i.
            code.push(Op::MacroStart {
                kind: MacroOp::All,
                end: 3 * depth - i + 1,
            });
        }
        code.push(Op::Var(u16::try_from(depth - 1).unwrap()));
        code.extend((0..depth).map(|_| Op::MacroNext));
        code.push(Op::Return);
        code
    }

    #[test]
    fn macro_nesting_is_bounded() {
        let limit = u32::try_from(MAX_MACRO_NESTING).unwrap();
        verify(one_hook(nested_macros(limit), 2)).unwrap();
        let m = msg(one_hook(nested_macros(limit + 1), 2));
        assert!(m.contains("macros nested deeper than 128"), "{m}");
    }

    #[test]
    fn max_stack_is_checked() {
        let mut p = sample();
        p.hooks[3].max_stack = 3;
        assert_eq!(
            msg(p),
            "hook 3 (`h3`): declared max_stack 3, but its code needs 4"
        );
        let mut p = sample();
        p.hooks[3].max_stack = u32::MAX;
        assert!(msg(p).contains("but the limit is 65536"));
        // More values than the limit.
        let n = u32::try_from(MAX_STACK_DEPTH).unwrap() + 1;
        let mut code: Vec<Op> = (0..n).map(|_| Op::Null).collect();
        code.push(Op::MakeList(n));
        code.push(Op::Return);
        assert!(matches!(
            err(one_hook(code, 1)),
            VerifyError::StackTooDeep { .. }
        ));
        // Overestimating is allowed.
        let mut p = sample();
        p.hooks[3].max_stack = 100;
        verify(p).unwrap();
    }

    #[test]
    fn regexes_sets_paths_consts() {
        let mut p = sample();
        p.regexes[0] = "(".to_owned();
        assert!(msg(p).starts_with("regex 0 (`(`) does not compile"));
        let mut p = sample();
        p.regexes[0] = "a{1000}{1000}".to_owned();
        assert!(matches!(err(p), VerifyError::BadRegex { .. }));
        let mut p = sample();
        p.sets[0] = 0;
        assert_eq!(msg(p), "set 0 refers to constant 0, which is not a list");
        let mut p = sample();
        p.paths[2] = (0..=MAX_PATH_SEGMENTS).fold(Path::root("a"), |q, i| {
            q.child(Segment::Index(i64::try_from(i).unwrap()))
        });
        assert_eq!(
            msg(p),
            "the program has 257 segments in one path, over the limit of 256"
        );
        for root in ["", "1x", "a-b", "a.b"] {
            let mut p = sample();
            p.paths[2] = Path::root(root);
            assert!(
                matches!(err(p), VerifyError::BadPathRoot { path: 2, .. }),
                "{root}"
            );
        }
        let mut p = sample();
        let mut deep = json!(1);
        for _ in 0..MAX_VALUE_DEPTH {
            deep = json!([deep]);
        }
        p.consts.push(deep);
        assert_eq!(msg(p), "constant 5: value nested deeper than 256 levels");
        let mut p = sample();
        p.code[22] = Op::TypeIs(0x80);
        assert!(msg(p).contains("unknown kind bits 0x80"));
    }

    #[test]
    fn actions_and_code_ranges() {
        let mut p = sample();
        p.actions[0].params[1].0 = 4;
        assert_eq!(msg(p), "action 0: duplicate parameter `max_attempts`");
        let mut p = sample();
        p.actions[0].params[2].1 =
            ParamValue::Object(vec![(11, ParamValue::Const(0)), (11, ParamValue::Const(1))]);
        assert!(msg(p).contains("duplicate object key `k`"));
        let mut p = sample();
        let mut deep = ParamValue::Const(0);
        for _ in 0..MAX_VALUE_DEPTH {
            deep = ParamValue::List(vec![deep]);
        }
        p.actions[1].params.push((4, deep));
        assert!(msg(p).contains("action 1: value nested deeper"));
        let mut p = sample();
        p.hooks[1].code = (8, 25);
        assert!(msg(p).contains("overlaps or precedes"));
        let mut p = sample();
        p.hooks[3].code = (25, 68);
        assert!(msg(p).contains("runs past the end of the code"));
        let mut p = sample();
        p.hooks[2].code = (26, 25);
        assert!(msg(p).contains("is reversed"));
    }

    #[test]
    fn event_index() {
        let mut p = sample();
        p.events.named.swap(0, 1);
        assert!(msg(p).contains("not sorted (`before_step` after `error`)"));
        let mut p = sample();
        p.events.named[1].0 = 8;
        assert_eq!(msg(p), "event index: duplicate event `before_step`");
        let mut p = sample();
        p.events.named[1].1 = vec![0, 3, 1];
        assert!(msg(p).contains("hooks of event `error` are not in increasing order"));
        let mut p = sample();
        p.events.wildcard = vec![3, 3];
        assert!(msg(p).contains("wildcard"));
    }

    #[test]
    fn table_sizes() {
        let p = Program {
            hooks: vec![
                HookEntry {
                    id: 0,
                    priority: 0,
                    layer: 1,
                    description: None,
                    code: (0, 0),
                    max_stack: 0,
                    action: 0,
                };
                MAX_HOOKS + 1
            ],
            ..Program::default()
        };
        assert!(matches!(
            err(p),
            VerifyError::TableTooLarge { table: "hooks", .. }
        ));
    }

    #[test]
    fn verification_is_linear() {
        // 200k instructions of short-circuits: quick, not quadratic.
        let mut code = vec![Op::True];
        for _ in 0..100_000 {
            let next = u32::try_from(code.len()).unwrap() + 3;
            code.extend([Op::AndShort(next), Op::True, Op::AndJoin]);
        }
        code.push(Op::Return);
        let t = std::time::Instant::now();
        verify(one_hook(code, 2)).unwrap();
        assert!(t.elapsed().as_secs() < 5);
    }
}
