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
//!    plan keeps one slot per distinct path).
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

mod code;
mod error;

pub use error::{Location, VerifyError};

use crate::bytecode::{
    ActionIdx, Binding, ConstIdx, Effect, Kinds, OnError, ParamValue, PathIdx, PriorityOrder,
    Program, RegexIdx, SetIdx, StrIdx, TableIdx, TemplatePart, ValueCheck,
};
use crate::limits::{
    MAX_HOOKS, MAX_PATH_SEGMENTS, MAX_REGEX_LITERALS, MAX_STACK_DEPTH, MAX_TABLE_LEN,
    MAX_VALUE_DEPTH,
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
    let regexes = match program.regex_literals.as_slice() {
        [] => program
            .regexes
            .iter()
            .map(|pattern| PolicyRegex::deferred(pattern))
            .collect(),
        recorded => program
            .regexes
            .iter()
            .zip(recorded)
            .map(|(pattern, literals)| PolicyRegex::with_required(pattern, literals))
            .collect(),
    };
    let sets = program
        .sets
        .iter()
        .enumerate()
        .map(|(index, &konst)| match program.konst(konst) {
            Some(serde_json::Value::Array(items)) => Ok(ConstSet::new(items)),
            _ => Err(VerifyError::BadSet {
                index,
                konst: konst.as_u32(),
            }),
        })
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

/// The regexes' recorded literals: none, or one list per regex of at most
/// [`MAX_REGEX_LITERALS`] each. (That each literal is one every match
/// contains is the compiler's to say, as what the code computes is: the
/// verifier does not parse the patterns.)
fn check_regex_literals(p: &Program) -> Result<(), VerifyError> {
    let bad = |reason: String| Err(VerifyError::BadRegexLiterals { reason });
    if !p.regex_literals.is_empty() && p.regex_literals.len() != p.regexes.len() {
        return bad(format!(
            "are {} lists for {} regexes",
            p.regex_literals.len(),
            p.regexes.len()
        ));
    }
    if let Some(i) = p
        .regex_literals
        .iter()
        .position(|l| l.len() > MAX_REGEX_LITERALS)
    {
        return bad(format!("of regex {i} are more than {MAX_REGEX_LITERALS}"));
    }
    Ok(())
}

fn check_consts(p: &Program) -> Result<(), VerifyError> {
    // One explicit stack for all constants: no recursion over the values.
    let mut stack: Vec<(&serde_json::Value, usize)> = Vec::new();
    // The constants built so far hold every list and object; a string not
    // yet built is one level deep, and building it here would undo the
    // pool's laziness.
    for (i, value) in p.consts.built() {
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

fn check_tables(p: &Program) -> Result<(), VerifyError> {
    for (index, table) in p.tables.iter().enumerate() {
        let at = || Location::Program;
        let bad = |reason: &str| VerifyError::BadTable {
            index,
            reason: reason.to_owned(),
        };
        in_bounds(p, table.on, at)?;
        in_bounds(p, table.rows, at)?;
        for &r in &table.patterns {
            in_bounds(p, r, at)?;
        }
        if table.patterns.is_empty() {
            return Err(bad("has no rows"));
        }
        match p.konst(table.rows) {
            Some(serde_json::Value::Array(rows))
                if rows.len() == table.patterns.len() && rows.iter().all(|r| r.is_object()) => {}
            _ => {
                return Err(bad(
                    "has a rows constant that is not a list of one object per pattern",
                ))
            }
        }
    }
    Ok(())
}

fn check_sets(p: &Program) -> Result<(), VerifyError> {
    for (index, &konst) in p.sets.iter().enumerate() {
        in_bounds(p, konst, || Location::Set(index_u32(index)))?;
        if !matches!(p.konst(konst), Some(serde_json::Value::Array(_))) {
            return Err(VerifyError::BadSet {
                index,
                konst: konst.as_u32(),
            });
        }
    }
    Ok(())
}

fn check_actions(p: &Program) -> Result<(), VerifyError> {
    let mut stack: Vec<(&ParamValue, usize)> = Vec::new();
    // Reused for every action and object: no allocation per action.
    let mut names = Names::default();
    for (a, action) in p.actions.iter().enumerate() {
        let at = || Location::Action(index_u32(a));
        let string = |i: StrIdx| -> Result<&str, VerifyError> {
            in_bounds(p, i, at)?;
            Ok(p.string(i))
        };
        string(action.kind)?;
        names.clear();
        for param in &action.params {
            let name = string(param.name)?;
            if !names.insert(name) {
                return Err(VerifyError::Duplicate {
                    at: at(),
                    what: "parameter",
                    name: name.to_owned(),
                });
            }
            stack.push((&param.value, 1));
        }
        while let Some((value, depth)) = stack.pop() {
            if depth > MAX_VALUE_DEPTH {
                return Err(VerifyError::TooDeep {
                    at: at(),
                    limit: MAX_VALUE_DEPTH,
                });
            }
            match value {
                ParamValue::Const(k) => in_bounds(p, *k, at)?,
                ParamValue::Template(parts) => {
                    for part in parts {
                        match part {
                            TemplatePart::Lit(s) => in_bounds(p, *s, at)?,
                            TemplatePart::Path(q) => in_bounds(p, *q, at)?,
                            TemplatePart::Expr { code, max_stack } => {
                                check_template_code(p, index_u32(a), *code, *max_stack)?;
                            }
                        }
                    }
                }
                ParamValue::List(items) => {
                    stack.extend(items.iter().map(|item| (item, depth + 1)));
                }
                ParamValue::Object(entries) => {
                    names.clear();
                    for (key, item) in entries {
                        let key = string(*key)?;
                        if !names.insert(key) {
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
        // Indexes are known good now: the checks.
        for param in &action.params {
            if let Some(c) = &param.check {
                let name = p.string(param.name);
                check_check(p, c, name, at)?;
                check_value_fits(p, &param.value, c, name, String::new(), at)?;
            }
        }
    }
    Ok(())
}

/// The decision model against the actions
/// (`docs/src/semantics.md#action-effects`): bindings are paths of the table
/// and only on awaited actions; the error policy's action is an action of
/// the table and terminal.
fn check_model(p: &Program) -> Result<(), VerifyError> {
    for (a, action) in p.actions.iter().enumerate() {
        let at = || Location::Action(index_u32(a));
        if let Some(bind) = action.bind {
            match bind {
                Binding::Path(path) => in_bounds(p, path, at)?,
                Binding::Parameter(name) => {
                    in_bounds(p, name, at)?;
                    if !action.params.iter().any(|q| q.name == name) {
                        return Err(VerifyError::BadModel {
                            at: at(),
                            reason: "binds at a parameter it does not have",
                        });
                    }
                }
            }
            if action.effect != Effect::Await {
                return Err(VerifyError::BadModel {
                    at: at(),
                    reason: "binds a result but is not an awaited action",
                });
            }
        }
    }
    if let OnError::Action(a) = p.model.on_error {
        let at = || Location::Program;
        in_bounds(p, a, at)?;
        if p.action(a).map(|e| e.effect) != Some(Effect::Terminal) {
            return Err(VerifyError::BadModel {
                at: Location::Action(a.as_u32()),
                reason: "is the error policy's action but not terminal",
            });
        }
    }
    Ok(())
}

/// The names of one list seen so far (an action's parameters, an object's
/// keys), for finding the first repeated one. A few names are compared with
/// each other, which is faster than hashing them and needs no allocation
/// once the buffer has grown; past [`Names::FEW`] they move to a hash set,
/// so that a long list stays linear.
#[derive(Default)]
struct Names<'a> {
    few: Vec<&'a str>,
    many: HashSet<&'a str>,
}

impl<'a> Names<'a> {
    const FEW: usize = 8;

    /// Forgets every name (keeping the buffers).
    fn clear(&mut self) {
        self.few.clear();
        self.many.clear();
    }

    /// Adds `name`; `false` if it was added before.
    fn insert(&mut self, name: &'a str) -> bool {
        if self.few.len() < Self::FEW {
            if self.few.contains(&name) {
                return false;
            }
            self.few.push(name);
            return true;
        }
        if self.many.is_empty() {
            self.many.extend(self.few.iter().copied());
        }
        self.many.insert(name)
    }
}

/// A check's own structure: kinds known and not empty, the enum a list
/// constant, items nested at most [`MAX_VALUE_DEPTH`].
fn check_check(
    p: &Program,
    c: &ValueCheck,
    param: &str,
    at: impl Fn() -> Location,
) -> Result<(), VerifyError> {
    let bad = |reason| VerifyError::BadCheck {
        at: at(),
        param: param.to_owned(),
        reason,
    };
    if c.depth() > MAX_VALUE_DEPTH {
        return Err(bad("nests its items too deeply"));
    }
    let mut cur = Some(c);
    while let Some(c) = cur {
        if c.kinds.is_empty() || Kinds::from_bits(c.kinds.bits()) != c.kinds {
            return Err(bad("allows no kind of value"));
        }
        if let Some(k) = c.allowed {
            in_bounds(p, k, &at)?;
            if !matches!(p.konst(k), Some(serde_json::Value::Array(_))) {
                return Err(bad("has an enum that is not a list constant"));
            }
        }
        cur = c.items.as_deref();
    }
    Ok(())
}

/// Whether a parameter value (at position `pos` inside the parameter) can
/// pass its check: a constant passes it, a list or object is of an allowed
/// kind (and a list's items can pass the items' check), a template with
/// text around its references is a string. A whole template can be
/// anything: the VM checks it. Recursion follows the check's items, whose
/// depth [`check_check`] bounded.
fn check_value_fits(
    p: &Program,
    value: &ParamValue,
    c: &ValueCheck,
    param: &str,
    pos: String,
    at: impl Fn() -> Location + Copy,
) -> Result<(), VerifyError> {
    let fails = |pos: &str, value: &str, expected: String| VerifyError::CheckFails {
        at: at(),
        problem: format!("parameter `{param}{pos}` is {value}, not {expected}"),
    };
    match value {
        ParamValue::Const(k) => {
            let konst = p.konst(*k).unwrap_or(&serde_json::Value::Null);
            if let Some(v) = check::violation(p, c, konst) {
                return Err(fails(
                    &format!("{pos}{}", v.at),
                    &check::shown(v.value),
                    check::expected(p, v.check),
                ));
            }
        }
        ParamValue::Template(parts) => {
            if !matches!(
                parts.as_slice(),
                [TemplatePart::Path(_) | TemplatePart::Expr { .. }]
            ) && !c.kinds.intersects(Kinds::STRING)
            {
                return Err(fails(&pos, "a string", check::expected(p, c)));
            }
        }
        ParamValue::List(items) => {
            if !c.kinds.intersects(Kinds::LIST) {
                return Err(fails(&pos, "an array", check::expected(p, c)));
            }
            if let Some(item_check) = &c.items {
                for (i, item) in items.iter().enumerate() {
                    check_value_fits(p, item, item_check, param, format!("{pos}[{i}]"), at)?;
                }
            }
        }
        ParamValue::Object(_) => {
            if !c.kinds.intersects(Kinds::OBJECT) {
                return Err(fails(&pos, "an object", check::expected(p, c)));
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
        in_bounds(p, name, || Location::Program)?;
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

/// The code of a template expression of action `action`: a non-empty range
/// inside the code, checked as a hook's code is (it ends in `Return`, jumps
/// forward, keeps the stack discipline) and needing at most its declared
/// `max_stack`, itself within [`MAX_STACK_DEPTH`]. It may lie anywhere in
/// the code (the lowering writes it after its hook's condition).
fn check_template_code(
    p: &Program,
    action: u32,
    (start, end): (u32, u32),
    max_stack: u32,
) -> Result<(), VerifyError> {
    let at = || Location::Action(action);
    let bad_range = |reason| VerifyError::BadCodeRange {
        at: at(),
        start,
        end,
        reason,
    };
    if start >= end {
        return Err(bad_range(
            "is empty or reversed (a template expression has code)",
        ));
    }
    if end as usize > p.code.len() {
        return Err(bad_range("runs past the end of the code"));
    }
    if max_stack as usize > MAX_STACK_DEPTH {
        return Err(VerifyError::MaxStack {
            at: at(),
            declared: max_stack,
            reason: "the limit is",
            needed: MAX_STACK_DEPTH as u64,
        });
    }
    let needed = code::check_code(
        p,
        code::Owner::Template(action),
        (start, end),
        &mut Vec::new(),
    )?;
    if needed > max_stack {
        return Err(VerifyError::MaxStack {
            at: at(),
            declared: max_stack,
            reason: "its code needs",
            needed: u64::from(needed),
        });
    }
    Ok(())
}

fn check_hooks(p: &Program) -> Result<(), VerifyError> {
    let mut scratch = Vec::new();
    let mut prev_end: u32 = 0;
    let mut prev_key: Option<(i64, u32)> = None;
    for (h, entry) in p.hooks.iter().enumerate() {
        let hook = index_u32(h);
        let at = || hook_loc(p, hook);
        in_bounds(p, entry.id, at)?;
        in_range(entry.layer, p.layers.len(), "layer", at)?;
        // INVARIANT (evaluation order): the runtime tries hooks in index
        // order, which must be priority in the program's direction, then
        // layer descending.
        let key = (entry.priority, entry.layer);
        let out_of_order = prev_key.is_some_and(|(prev_priority, prev_layer)| {
            let priority = match p.priority_order {
                PriorityOrder::HigherFirst => prev_priority.cmp(&entry.priority).reverse(),
                PriorityOrder::LowerFirst => prev_priority.cmp(&entry.priority),
            };
            priority.then(entry.layer.cmp(&prev_layer)).is_gt()
        });
        if out_of_order {
            return Err(VerifyError::OutOfOrder { at: at() });
        }
        prev_key = Some(key);
        if let Some(d) = entry.description {
            in_bounds(p, d, at)?;
        }
        in_bounds(p, entry.action, at)?;
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
        let needed = code::check_code(p, code::Owner::Hook(hook), entry.code, &mut scratch)?;
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

// ---------------------------------------------------------------------------
// 7: ids.

fn check_ids(p: &Program) -> Result<(), VerifyError> {
    let mut seen: HashSet<&str> = HashSet::with_capacity(p.hooks.len() + p.absent.len());
    for (h, entry) in p.hooks.iter().enumerate() {
        // Bounds were checked with the hooks.
        let id = p.string(entry.id);
        if !seen.insert(id) {
            return Err(VerifyError::Duplicate {
                at: hook_loc(p, index_u32(h)),
                what: "hook id",
                name: id.to_owned(),
            });
        }
    }
    for absent in &p.absent {
        in_bounds(p, absent.id, || Location::Program)?;
        let id = p.string(absent.id);
        if !seen.insert(id) {
            return Err(VerifyError::Duplicate {
                at: Location::Program,
                what: "hook id (of an absent hook)",
                name: id.to_owned(),
            });
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// 8: the event index.

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
            in_range(h, p.hooks.len(), "hook", || Location::Events)?;
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
        in_bounds(p, *name, || Location::Events)?;
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
// 9: debug information.

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
        in_bounds(p, debug.at, at)?;
        let mut prev: Option<u32> = None;
        for mark in &debug.marks {
            in_bounds(p, mark.text, at)?;
            in_bounds(p, mark.at, at)?;
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
pub(crate) mod tests;
