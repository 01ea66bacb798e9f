//! The instruction set, declared once.
//!
//! [`for_each_op!`] holds the one table of instructions, in the style of
//! wasmparser's `for_each_operator!`: each opcode once, with its byte, its
//! name (the variant's, as the disassembler prints it), its typed operands,
//! its stack effect, how control leaves it, and (when the default will not
//! do) how the disassembler lays its operands out. The macro hands the table
//! to another macro; this module's `define_op!` generates from it [`Op`],
//! [`Op::name`], [`Op::opcode`], [`Op::stack_effect`], [`Op::flow`], the
//! operand visitor [`Op::try_for_each_operand`], its mapping form
//! [`Op::try_map_operands`] and the disassembler's
//! layout [`Op::layout`]; the artifact codec generates its encoder and
//! decoder from the same table.
//!
//! Operands are typed by kind ([`Operand`]): what they index (a string, a
//! path, a constant, a set, a regex), where they jump (a [`JumpTarget`]
//! reached with the fall-through stack, or an exit reached with one value
//! more), or what they are (a variable depth, a count, a comparison, a macro
//! kind, kind bits). The verifier (bounds, jump joins), the disassembler
//! (operand text) and explain (the paths an instruction reads) visit
//! operands by kind with exhaustive matches: a new opcode whose operands
//! are of known kinds is checked, printed and explained with no further
//! code, and a new kind of operand does not compile until each of them
//! handles it.
//!
//! The VM does not use the visitor: its loop is a plain exhaustive `match`
//! on [`Op`] (it must not pay for the indirection), so a new opcode does not
//! compile until the VM runs it either.
//!
//! # Table syntax
//!
//! ```text
//! /// docs
//! 0xNN Name                                    // no operands
//! 0xNN Name(field: Kind)                       // one operand
//! 0xNN Name { /// docs
//!             field: Kind, ... }               // several
//!     [pops -> pushes]                         // falls through
//!     [pops -> pushes, Flow]                   // any other `Flow`
//!     "operand text" "note"                    // optional layout
//! ;
//! ```
//!
//! `pops` is a number or the name of the operand that counts the values
//! popped (`MakeList`). A `Kind` is a variant of [`Operand`]; its Rust type
//! is given by `operand_type!`. The layout strings name operands in braces
//! (`"path {path} {op} const {konst}"`); a name that is no operand is a
//! compile error. Without them, the operands' texts are joined by `, ` and
//! their notes by a space.

use super::{ConstIdx, JumpTarget, PathIdx, RegexIdx, SetIdx, StrIdx, TableIdx};

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

impl CmpOp {
    /// The operator as written in conditions (`==`, `<=`, ...).
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
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
    /// `map`: the list of the body's values; any error is the result.
    Map = 3,
    /// `filter`: the elements whose body gives true; an error or a non-bool
    /// is the result.
    Filter = 4,
}

impl MacroOp {
    /// The macro as written in conditions (`exists`, `all`, `exists_one`).
    pub fn name(self) -> &'static str {
        match self {
            MacroOp::Exists => "exists",
            MacroOp::All => "all",
            MacroOp::ExistsOne => "exists_one",
            MacroOp::Map => "map",
            MacroOp::Filter => "filter",
        }
    }
}

/// One operand of an instruction, by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    /// A string of the table (a field name).
    Str(StrIdx),
    /// A context path of the table.
    Path(PathIdx),
    /// A constant of the pool.
    Const(ConstIdx),
    /// A set of the table.
    Set(SetIdx),
    /// A regex of the table.
    Regex(RegexIdx),
    /// A jump that arrives with the stack the instruction leaves on its
    /// fall-through path (a short circuit keeps its deciding value, a
    /// `Branch` has popped its condition, a `Jump` has done nothing).
    Jump(JumpTarget),
    /// A jump out of a construct that arrives with one value more than the
    /// fall-through path: the construct's result, decided early and pushed
    /// instead of running the code it skips (a `Branch` on a non-bool, a
    /// macro over an empty or non-iterable range). Always after every
    /// `Jump` target of the same instruction.
    Exit(JumpTarget),
    /// The depth of a macro variable, 0 for the innermost macro's.
    Depth(u16),
    /// How many values the instruction pops.
    Count(u32),
    /// A comparison.
    Cmp(CmpOp),
    /// A list macro.
    Macro(MacroOp),
    /// A set of JSON kinds, as [`Kinds`](super::Kinds) bits.
    Kinds(u8),
    /// A builtin function of the function table.
    Func(FuncId),
    /// A pattern table.
    Table(TableIdx),
    /// A slot of the code's kept local values (`LocalLoad`, `LocalStore`),
    /// below [`crate::limits::MAX_LOCAL_SLOTS`].
    Slot(u16),
}

/// A call's function: a builtin's stable id in the function table
/// (`crate::functions::Builtin::id`, the artifact's operand) and the
/// number of values the call pops. The bytecode names a function without
/// knowing the table, which stands above it (`functions/` reads the
/// instructions some builtins lower to); the verifier checks that the id
/// is a builtin's and the arity is its.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FuncId {
    id: u16,
    arity: u32,
}

impl FuncId {
    /// The function of stable id `id`, popping `arity` values.
    pub const fn new(id: u16, arity: u32) -> FuncId {
        FuncId { id, arity }
    }

    /// Its stable id.
    pub const fn id(self) -> u16 {
        self.id
    }

    /// How many values a call pops.
    pub const fn arity(self) -> u32 {
        self.arity
    }
}

/// The Rust type of an operand kind (a variant of [`Operand`]).
macro_rules! operand_type {
    (Str) => {
        $crate::bytecode::StrIdx
    };
    (Path) => {
        $crate::bytecode::PathIdx
    };
    (Const) => {
        $crate::bytecode::ConstIdx
    };
    (Set) => {
        $crate::bytecode::SetIdx
    };
    (Regex) => {
        $crate::bytecode::RegexIdx
    };
    (Jump) => {
        $crate::bytecode::JumpTarget
    };
    (Exit) => {
        $crate::bytecode::JumpTarget
    };
    (Depth) => {
        u16
    };
    (Count) => {
        u32
    };
    (Cmp) => {
        $crate::bytecode::CmpOp
    };
    (Macro) => {
        $crate::bytecode::MacroOp
    };
    (Kinds) => {
        u8
    };
    (Func) => {
        $crate::bytecode::FuncId
    };
    (Table) => {
        $crate::bytecode::TableIdx
    };
    (Slot) => {
        u16
    };
}
pub(crate) use operand_type;

/// How control leaves an instruction, besides its operands' jumps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// On to the next instruction (and, when it has some, to its `Jump` and
    /// `Exit` targets).
    Next,
    /// Only to its jump target: it never falls through.
    Goto,
    /// Into a macro's body, which ends just before the instruction's `Exit`
    /// target with the matching [`Flow::MacroNext`].
    MacroStart,
    /// Closes the innermost macro's body: back to its start for the next
    /// element, or on with the macro's result.
    MacroNext,
    /// Out of the hook with its result: the last instruction of its code.
    Return,
}

/// Hands the instruction table to `$m!` (see the [module docs](self)).
macro_rules! for_each_op {
    ($m:ident) => {
        $m! {
            /// `0 -> 1`: push `consts[i]`.
            0x01 Const(index: Const) [0 -> 1];
            /// `0 -> 1`: push `true`.
            0x02 True [0 -> 1];
            /// `0 -> 1`: push `false`.
            0x03 False [0 -> 1];
            /// `0 -> 1`: push `null`.
            0x04 Null [0 -> 1];
            /// `0 -> 1`: push the value at `paths[i]`, or an error (no such key) if it does not resolve.
            0x05 Path(index: Path) [0 -> 1];
            /// `0 -> 1`: push the variable of the macro `d` levels out from the innermost (0 = innermost).
            0x06 Var(depth: Depth) [0 -> 1];
            /// `1 -> 1`: `top.strings[i]`.
            0x07 Field(index: Str) [1 -> 1];
            /// `2 -> 1`: `a[b]`.
            0x08 Index [2 -> 1];
            /// `0 -> 1`: `has(paths[i])`: every segment resolves.
            0x09 HasPath(index: Path) [0 -> 1];
            /// `1 -> 1`: `has(top.strings[i])`.
            0x0a HasField(index: Str) [1 -> 1];
            /// `1 -> 1`: `!a`.
            0x0b Not [1 -> 1];
            /// `1 -> 1`: `-a`.
            0x0c Neg [1 -> 1];
            /// `2 -> 1`: `a + b`.
            0x0d Add [2 -> 1];
            /// `2 -> 1`: `a - b`.
            0x0e Sub [2 -> 1];
            /// `2 -> 1`: `a * b`.
            0x0f Mul [2 -> 1];
            /// `2 -> 1`: `a / b`.
            0x10 Div [2 -> 1];
            /// `2 -> 1`: `a % b`.
            0x11 Rem [2 -> 1];
            /// `2 -> 1`: `a OP b`.
            0x12 Cmp(op: Cmp) [2 -> 1] "{op}" "";
            /// `2 -> 1`: `a in b`.
            0x13 In [2 -> 1];
            /// `1 -> 1`: `a in sets[i]` (a constant list, hashed at load).
            0x14 InSet(index: Set) [1 -> 1];
            /// `1 -> 1`: `size(a)`.
            0x15 Size [1 -> 1];
            /// `2 -> 1`: `a.contains(b)`.
            0x16 Contains [2 -> 1];
            /// `2 -> 1`: `a.startsWith(b)`.
            0x17 StartsWith [2 -> 1];
            /// `2 -> 1`: `a.endsWith(b)`.
            0x18 EndsWith [2 -> 1];
            /// `1 -> 1`: `a.matches(regexes[i])`.
            0x19 Matches(index: Regex) [1 -> 1];
            /// `1 -> 1`: whether `a`'s kind is in the set (bits of [`crate::bytecode::Kinds`]).
            0x1a TypeIs(kinds: Kinds) [1 -> 1];
            /// `n -> 1`: a list of the top `n` values (first pushed first).
            0x1b MakeList(count: Count) [count -> 1];
            /// `0 -> 1`: fused `paths[path] OP consts[konst]`.
            0x1c PathCmpConst {
                /// The path.
                path: Path,
                /// The constant.
                konst: Const,
                /// The comparison.
                op: Cmp,
            } [0 -> 1] "path {path} {op} const {konst}" "{path} {op} {konst}";
            /// `0 -> 1`: fused `paths[path] in sets[set]`.
            0x1d PathInSet {
                /// The path.
                path: Path,
                /// The set.
                set: Set,
            } [0 -> 1] "path {path} in set {set}" "{path} in {set}";
            /// `0 -> 1`: fused `paths[path].matches(regexes[regex])`.
            0x1e PathMatches {
                /// The path.
                path: Path,
                /// The regex.
                regex: Regex,
            } [0 -> 1] "path {path}, regex {regex}" "{path}.matches({regex})";
            /// `1 -> 1` (falls through) or `1 -> 1` (jumps): `&&`'s left side is on
            /// top; if it is `false`, jump to `target` leaving it as the result;
            /// otherwise keep it and evaluate the right side.
            0x1f AndShort(target: Jump) [1 -> 1];
            /// `2 -> 1`: combine `a && b` (CEL's commutative error absorption).
            0x20 AndJoin [2 -> 1];
            /// Like [`Op::AndShort`] for `||`, deciding on `true`.
            0x21 OrShort(target: Jump) [1 -> 1];
            /// `2 -> 1`: combine `a || b`.
            0x22 OrJoin [2 -> 1];
            /// `1 -> 0` (true: fall through; false: jump to `otherwise`) or `1 -> 1`
            /// (not a bool: push an error and jump to `end`): the condition of `?:`.
            0x23 Branch {
                /// Start of the `else` code.
                otherwise: Jump,
                /// Just past the whole conditional.
                end: Exit,
            } [1 -> 0] "else {otherwise}, end {end}" "";
            /// `0 -> 0`: jump to the target (forward).
            0x24 Jump(target: Jump) [0 -> 0, Goto];
            /// `1 -> 0` then the body: pop the range (a list, or an object's keys);
            /// if it is empty or not iterable, push the macro's result (or an error)
            /// and jump to `end`; otherwise bind the first element and run the body.
            0x25 MacroStart {
                /// Which macro.
                kind: Macro,
                /// Just past the matching `MacroNext`.
                end: Exit,
            } [1 -> 0, MacroStart] "{kind}, end {end}" "";
            /// `1 -> 0` or `1 -> 1`: pop the body's value for the current element;
            /// either decide the result (push it, fall through) or bind the next
            /// element and continue at the body's first instruction.
            0x26 MacroNext [1 -> 1, MacroNext];
            /// `1 -> 0`: the hook's result; ends the hook's code.
            0x27 Return [1 -> 0, Return];
            /// `n -> 1`: a builtin function of the function table on its `n`
            /// arguments (the receiver pushed first).
            0x28 Call(func: Func) [{ func.arity() } -> 1];
            /// `n -> 1`: a builtin function whose last parameter is a pattern
            /// literal, `regexes[regex]` (compiled on its first search).
            0x29 CallRegex {
                /// The function.
                func: Func,
                /// Its pattern.
                regex: Regex,
            } [{ func.arity() } -> 1] "{func}, regex {regex}" "{regex}";
            /// `0 -> 1`: the first row of `tables[table]` whose pattern matches
            /// the string at the table's path (one scan of the string), as its
            /// object; `null` when no row matches; an error when the path does
            /// not resolve or is not a string.
            0x2A Row(table: Table) [0 -> 1];
            /// `0 -> 0` (falls through to compute it) or `0 -> 1` (jumps):
            /// if local slot `slot` holds a value (a local name's, kept by
            /// its `LocalStore`), push it and jump to `end`, just past that
            /// `LocalStore`; otherwise run the name's code that follows.
            0x2B LocalLoad {
                /// The slot.
                slot: Slot,
                /// Just past the `LocalStore` that ends the name's code.
                end: Exit,
            } [0 -> 0] "slot {slot}, end {end}" "";
            /// `1 -> 1`: keep the value on top (a local name's, just
            /// computed) in local slot `slot` for the code's later uses, unless
            /// it is an error (which each use then meets again).
            0x2C LocalStore(slot: Slot) [1 -> 1];
        }
    };
}
pub(crate) use for_each_op;

/// [`Flow::Next`] unless the table names another.
macro_rules! flow_or_next {
    () => {
        Flow::Next
    };
    ($flow:ident) => {
        Flow::$flow
    };
}

/// The disassembler's `(operands, note)` for one instruction: the table's
/// layout strings, or the operands' texts joined by `, ` and notes by a
/// space.
macro_rules! layout {
    ([$($field:ident),*] $text:literal $note:literal) => {
        // Named arguments must all be used, and a layout need not show every
        // operand: each is also printed once with precision 0 (nothing), so
        // an unused one is no error while a name that is no operand still is.
        (
            format!(concat!($text $(, "{", stringify!($field), ":.0}")*), $($field = $field.0),*),
            format!(concat!($note $(, "{", stringify!($field), ":.0}")*), $($field = $field.1),*),
        )
    };
    ([$($field:ident),*]) => {{
        let parts: &[&(String, String)] = &[$(&$field),*];
        let texts: Vec<&str> = parts.iter().map(|p| p.0.as_str()).collect();
        let notes: Vec<&str> = parts
            .iter()
            .map(|p| p.1.as_str())
            .filter(|n| !n.is_empty())
            .collect();
        (texts.join(", "), notes.join(" "))
    }};
}

/// One operand of kind `$kind` through the mapping `$f`, back as its Rust
/// type (in [`Op::try_map_operands`]).
macro_rules! map_operand {
    ($kind:ident, $f:ident, $value:ident) => {{
        let given = Operand::$kind($value);
        match $f(given)? {
            Operand::$kind(v) => v,
            returned => return Err(OperandKindChanged { given, returned }.into()),
        }
    }};
}

/// An operand mapping ([`Op::try_map_operands`]) returned an operand of
/// another kind than it was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an operand mapping turned {given:?} into {returned:?}, an operand of another kind")]
pub struct OperandKindChanged {
    /// The operand given.
    pub given: Operand,
    /// What the mapping returned.
    pub returned: Operand,
}

/// Generates [`Op`] and its table-driven methods from [`for_each_op!`].
macro_rules! define_op {
    ($(
        $(#[$meta:meta])*
        $code:literal $name:ident
        $( ( $tfield:ident : $tkind:ident ) )?
        $( { $( $(#[$fmeta:meta])* $sfield:ident : $skind:ident ),+ $(,)? } )?
        [ $pops:tt -> $pushes:tt $(, $flow:ident)? ]
        $( $text:literal $note:literal )?
        ;
    )+) => {
        /// One instruction. Operands index the [`Program`](super::Program)'s
        /// tables (typed indexes: [`StrIdx`], [`PathIdx`], ...) or are
        /// absolute code positions within the same hook's code
        /// ([`JumpTarget`]s).
        ///
        /// Stack effects are written `pops -> pushes`.
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum Op {
            $(
                $(#[$meta])*
                $name
                $( ( operand_type!($tkind) ) )?
                $( { $( $(#[$fmeta])* $sfield: operand_type!($skind) ),+ } )?,
            )+
        }

        impl Op {
            /// The instruction's name, as the disassembler prints it.
            pub fn name(&self) -> &'static str {
                match self {
                    $( Op::$name { .. } => stringify!($name), )+
                }
            }

            /// The instruction's opcode byte in artifacts.
            pub fn opcode(&self) -> u8 {
                match self {
                    $( Op::$name { .. } => $code, )+
                }
            }

            /// `(pops, pushes)`. For the control instructions this is the
            /// effect on the fall-through path; their jumps are their
            /// operands' ([`Operand::Jump`], [`Operand::Exit`]).
            #[allow(unused_variables)]
            pub fn stack_effect(&self) -> (u32, u32) {
                match *self {
                    $(
                        Op::$name $( ( $tfield ) )? $( { $($sfield),+ } )? => ($pops, $pushes),
                    )+
                }
            }

            /// How control leaves the instruction, besides its jumps.
            pub fn flow(&self) -> Flow {
                match self {
                    $( Op::$name { .. } => flow_or_next!($($flow)?), )+
                }
            }

            /// Calls `f` with each operand, in declaration order (the
            /// encoding's), until it returns an error.
            #[inline]
            pub fn try_for_each_operand<E>(
                &self,
                mut f: impl FnMut(Operand) -> Result<(), E>,
            ) -> Result<(), E> {
                match *self {
                    $(
                        Op::$name $( ( $tfield ) )? $( { $($sfield),+ } )? => {
                            $( f(Operand::$tkind($tfield))?; )?
                            $( $( f(Operand::$skind($sfield))?; )+ )?
                        }
                    )+
                }
                Ok(())
            }

            /// The same instruction with each operand replaced by what `f`
            /// returns for it, in declaration order (the linker re-indexes
            /// tables and moves jump targets with it). `f` must return an
            /// operand of the kind it was given; another kind is an
            /// [`OperandKindChanged`] error.
            pub fn try_map_operands<E: From<OperandKindChanged>>(
                &self,
                mut f: impl FnMut(Operand) -> Result<Operand, E>,
            ) -> Result<Op, E> {
                Ok(match *self {
                    $(
                        Op::$name $( ( $tfield ) )? $( { $($sfield),+ } )? => Op::$name
                            $( ( map_operand!($tkind, f, $tfield) ) )?
                            $( { $( $sfield: map_operand!($skind, f, $sfield) ),+ } )?,
                    )+
                })
            }

            /// Calls `f` with each operand, in declaration order.
            pub fn for_each_operand(&self, mut f: impl FnMut(Operand)) {
                let done: Result<(), std::convert::Infallible> =
                    self.try_for_each_operand(|operand| {
                        f(operand);
                        Ok(())
                    });
                let Ok(()) = done;
            }

            /// The disassembler's `(operands, note)` for this instruction,
            /// from each operand's `(text, note)` as `render` gives them.
            #[allow(unused_variables)]
            pub fn layout(&self, mut render: impl FnMut(Operand) -> (String, String)) -> (String, String) {
                match *self {
                    $(
                        Op::$name $( ( $tfield ) )? $( { $($sfield),+ } )? => {
                            $( let $tfield = render(Operand::$tkind($tfield)); )?
                            $( $( let $sfield = render(Operand::$skind($sfield)); )+ )?
                            layout!([$($tfield)? $($($sfield),+)?] $($text $note)?)
                        }
                    )+
                }
            }
        }
    };
}

for_each_op!(define_op);

#[cfg(test)]
mod tests;
