//! The verifier: a [`Program`] becomes a [`VerifiedProgram`] only after every
//! check the VM relies on has passed, whether the program came from the
//! compiler or from an artifact that travelled. It works like a
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
//!    plan keeps one slot per distinct path). The sensitive members
//!    ([`Program::sensitive`]) are path indexes, each once.
//! 3. **Constants**: nested at most [`MAX_VALUE_DEPTH`] deep.
//! 4. **Sets**: each names a constant that is a list. **Pattern tables**:
//!    the path, regex and constant indexes are in bounds, there is at least
//!    one pattern, and the rows constant is a list of one object per
//!    pattern.
//! 5. **Actions**: the type and parameter names are string indexes,
//!    parameter names are unique, and every parameter value's constant,
//!    string and path indexes are in bounds, object keys unique, nesting at
//!    most [`MAX_VALUE_DEPTH`]. A parameter's check has known, non-empty
//!    kinds, an enum that is a list constant, items nested at most
//!    [`MAX_VALUE_DEPTH`]; and the value can pass it: a constant (also an
//!    item of a list, against the items' check) passes it, a list or an
//!    object is of a kind it allows, a template with text around its
//!    references (always a string) too.
//! 6. **Hooks**, in order: id, layer, description and action indexes in
//!    bounds; in evaluation order (priority, then layer, descending);
//!    code ranges inside [`Program::code`], in order and non-overlapping;
//!    `max_stack` at most [`MAX_STACK_DEPTH`]; then the hook's code (below).
//! 7. **Ids**: hook ids are unique; the absent hooks' ids
//!    ([`Program::absent`]) are string indexes, unique, and none is the id
//!    of a hook.
//! 8. **Event index**: names are string indexes, sorted by their text and
//!    unique (the runtime binary-searches them); every hook list (and the
//!    wildcard list) holds hook indexes in strictly increasing order.
//! 9. **Debug information**: none, or one entry per hook; string indexes in
//!    bounds; each hook's sub-condition marks inside its code range, in
//!    strictly increasing order (explain traces rely on both).
//! 10. **Pattern tables** compile, and sets are hashed. (Last: the only
//!     expensive steps run on a program already known to be well formed.)
//!     A regex is not parsed at load: it is parsed and compiled on its
//!     first search ([`PolicyRegex`]), and one that does not parse or
//!     compile (only a hand-made artifact has one: the compiler parses and
//!     compiles every pattern) makes that search an evaluation error, so
//!     its hook fails closed. Parsing every pattern was most of a small
//!     policy's load, for regexes a call never reaches. The regexes'
//!     recorded literals (format 6) are none, or one list per regex of at
//!     most [`MAX_REGEX_LITERALS`]; the patterns are not parsed to check
//!     them (the artifact is trusted for what its regexes require, as for
//!     what its code computes).
//!
//! # What a hook's code must satisfy
//!
//! A non-empty code range is verified in one pass, instruction by
//! instruction. Operands are checked by their kind
//! ([`Operand`](crate::bytecode::Operand), from the instruction table), so
//! an instruction's checks follow from its declaration:
//! - every table index of an operand is in bounds, `TypeIs` has only known
//!   kind bits;
//! - every jump target (a `Jump` or `Exit` operand: `AndShort`, `OrShort`,
//!   `Branch`'s `otherwise` and `end`, `Jump`, `MacroStart`'s `end`) is
//!   forward (`> ip`) and at most the hook's last instruction, and an
//!   instruction's `Exit` target is after its other targets (`Branch` has
//!   `otherwise < end`);
//! - the stack height is the same along every path into an instruction,
//!   never underflows, never exceeds the hook's `max_stack` nor
//!   [`MAX_STACK_DEPTH`]; `MakeList(n)` needs `n` values;
//! - every instruction is reachable (falls through from its predecessor or
//!   is a jump target), so every instruction has one known height;
//! - macros nest properly: each `MacroStart`'s `end` is just past its
//!   matching `MacroNext`, its body leaves exactly one value, nesting is at
//!   most [`MAX_MACRO_NESTING`](crate::limits::MAX_MACRO_NESTING), `Var(d)` is inside at least `d + 1` macros,
//!   and no jump enters or leaves a macro body;
//! - the last instruction, and only it, is `Return`, popping the only value.
//!
//! Each instruction costs O(1) (a `MakeList` too) and the pass keeps one
//! scratch slot per instruction, so verification is linear in the program.

mod actions;
mod code;
mod error;
mod hooks;
mod tables;

use actions::*;
use hooks::*;
use tables::*;

pub use error::{Location, VerifyError};

use crate::bytecode::{
    ActionIdx, Binding, ConstIdx, Effect, Kinds, OnError, ParamValue, PathIdx, PriorityOrder,
    Program, RegexIdx, SetIdx, StrIdx, TableIdx, TemplatePart, ValueCheck,
};
use crate::limits::{
    MAX_HOOKS, MAX_PATH_SEGMENTS, MAX_REGEX_LITERALS, MAX_REGEX_ONE_OF, MAX_STACK_DEPTH,
    MAX_TABLE_LEN, MAX_VALUE_DEPTH,
};
use crate::value::check;
use crate::value::table_matcher::TableMatcher;
use crate::value::{ConstSet, EvalError, PolicyRegex};
use std::collections::HashSet;

/// Compiling a pattern as the checker does, and the choice of its engine
/// (`value::policy_regex`, where a loaded policy's regexes live).
pub use crate::value::policy_regex::{
    compile_regex, compile_regex_on_engine, compile_regex_set, engine, record_required_literals,
    required_literals, Backtracking, CompiledRegex, Construct, Engine,
};

/// A program that passed verification, with its regexes ready to be parsed
/// and compiled on first use ([`PolicyRegex`]) and its sets hashed. The VM runs only these.
///
/// INVARIANT (verified): every check of the module documentation holds for
/// `program`; `regexes[i]` is `program.regexes[i]`'s regex and `sets[i]`
/// is the list `program.consts[program.sets[i]]` hashed. Established by
/// [`verify`], the only constructor; the fields are private and the program
/// is only handed out by shared reference.
#[derive(Debug, Clone)]
pub struct VerifiedProgram {
    program: Program,
    regexes: Vec<PolicyRegex>,
    sets: Vec<ConstSet>,
    /// `tables[i]`: the patterns of `program.tables[i]` as one matcher.
    tables: Vec<TableMatcher>,
}

impl VerifiedProgram {
    /// The program.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Regex `i` (parsed and compiled on first use).
    #[inline]
    pub fn regex(&self, i: RegexIdx) -> Option<&PolicyRegex> {
        self.regexes.get(i.as_usize())
    }

    /// Hashed set `i`.
    #[inline]
    pub fn set(&self, i: SetIdx) -> Option<&ConstSet> {
        self.sets.get(i.as_usize())
    }

    /// The matcher of pattern table `i` (compiled at load).
    #[inline]
    pub fn table(&self, i: TableIdx) -> Option<&TableMatcher> {
        self.tables.get(i.as_usize())
    }

    /// The first row of pattern table `i` whose pattern matches `text`
    /// (one scan of `text`, and a search of each row that needs
    /// backtracking before the first row that scan found); `Ok(None)` when
    /// no row does (or for a bad index); the step limit's error when a
    /// backtracking search passes it.
    pub fn first_row(&self, i: TableIdx, text: &str) -> Result<Option<usize>, EvalError> {
        match self.table(i) {
            Some(table) => table.first_row(&self.regexes, text),
            None => Ok(None),
        }
    }
}

/// Verifies a program (checks in the order of the module documentation;
/// the first failure is returned).
pub fn verify(program: Program) -> Result<VerifiedProgram, VerifyError> {
    check_table_sizes(&program)?;
    check_layers(&program)?;
    check_paths(&program)?;
    check_sensitive(&program)?;
    check_consts(&program)?;
    check_sets(&program)?;
    check_tables(&program)?;
    check_actions(&program)?;
    check_model(&program)?;
    check_hooks(&program)?;
    check_ids(&program)?;
    check_events(&program)?;
    check_debug(&program)?;
    check_regex_literals(&program)?;
    check_regex_one_of(&program)?;
    // What each regex's prefilter tests before the pattern is parsed: the
    // recorded literals and one-of set, none where nothing is recorded.
    let regexes = program
        .regexes
        .iter()
        .enumerate()
        .map(|(i, pattern)| {
            let i = RegexIdx::from_usize(i);
            PolicyRegex::with_literals(
                pattern,
                program.required_literals_of(i),
                program.one_of_literals_of(i),
            )
        })
        .collect();
    let sets = program
        .sets
        .iter()
        .enumerate()
        .map(
            |(index, &konst)| match program.consts.text_list(konst.as_usize()) {
                // A list of strings kept as texts: the set without the list.
                Some(items) => Ok(ConstSet::of_strs(items)),
                None => match program.konst(konst) {
                    Some(serde_json::Value::Array(items)) => Ok(ConstSet::new(items)),
                    _ => Err(VerifyError::BadSet {
                        index,
                        konst: konst.as_u32(),
                    }),
                },
            },
        )
        .collect::<Result<Vec<_>, _>>()?;
    let tables = program
        .tables
        .iter()
        .enumerate()
        .map(|(index, table)| {
            TableMatcher::new(&program, table).map_err(|reason| VerifyError::BadTable {
                index,
                reason: format!("does not compile: {reason}"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    // INVARIANT (verified): every check passed; see `VerifiedProgram`.
    Ok(VerifiedProgram {
        program,
        regexes,
        sets,
        tables,
    })
}

// ---------------------------------------------------------------------------
// Locations and index checks.

fn hook_id(p: &Program, hook: u32) -> String {
    p.hooks
        .get(hook as usize)
        .and_then(|h| p.get_string(h.id))
        .map(str::to_owned)
        .unwrap_or_else(|| format!("#{hook}"))
}

pub(super) fn hook_loc(p: &Program, hook: u32) -> Location {
    Location::Hook {
        hook,
        id: hook_id(p, hook),
    }
}

pub(super) fn instr_loc(p: &Program, hook: u32, ip: u32) -> Location {
    Location::Instruction {
        hook,
        id: hook_id(p, hook),
        ip,
    }
}

/// A typed table index: the table it indexes, for bounds checks.
pub(super) trait TableIndex: Copy {
    /// The table's name in messages (`string`, `path`, ...).
    const TABLE: &'static str;
    /// The table's length in `p`.
    fn table_len(p: &Program) -> usize;
    /// The index.
    fn number(self) -> u32;
}

macro_rules! table_index {
    ($($t:ident $name:literal $field:ident),+ $(,)?) => {$(
        impl TableIndex for $t {
            const TABLE: &'static str = $name;
            fn table_len(p: &Program) -> usize {
                p.$field.len()
            }
            fn number(self) -> u32 {
                self.as_u32()
            }
        }
    )+};
}

table_index! {
    StrIdx "string" strings,
    PathIdx "path" paths,
    ConstIdx "constant" consts,
    SetIdx "set" sets,
    RegexIdx "regex" regexes,
    ActionIdx "action" actions,
    TableIdx "pattern table" tables,
}

/// `Ok` if `index` names an entry of its table in `p`.
pub(super) fn in_bounds<I: TableIndex>(
    p: &Program,
    index: I,
    at: impl FnOnce() -> Location,
) -> Result<(), VerifyError> {
    in_range(index.number(), I::table_len(p), I::TABLE, at)
}

/// `Ok` if `index` names an entry of a table of `len` entries (hooks and
/// layers, indexed by plain numbers).
fn in_range(
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
    let tables: [(&'static str, usize, usize); 11] = [
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
        ("absent hooks", p.absent.len(), MAX_TABLE_LEN),
    ];
    for (table, len, limit) in tables {
        // MAX_TABLE_LEN < u32::MAX, so every index of a table below the limit fits u32.
        if len > limit {
            return Err(VerifyError::TableTooLarge { table, len, limit });
        }
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests;
