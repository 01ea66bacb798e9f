//! The syntax tree of the `when` expression language, exactly as written.
//!
//! The parser produces it; `resolve::ast_to_ir` resolves it (identifiers to
//! context paths or macro variables, methods to builtins) into the IR. Nothing
//! here is checked beyond syntax.

use crate::span::Span;

/// An expression with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// The whole expression's source range.
    pub span: Span,
}

/// The forms of the grammar (`grammar/expr.ebnf`).
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// `null`
    Null,
    /// `true`, `false`
    Bool(bool),
    /// An int literal; a leading `-` is folded in (`-9223372036854775808` is valid).
    Int(i64),
    /// A double literal.
    Double(f64),
    /// A string literal, escapes resolved, and how it was written.
    String(String, StrStyle),
    /// `[a, b]`
    List(Vec<Expr>),
    /// `{k: v, ...}`: entries in source order.
    Map(Vec<(Expr, Expr)>),
    /// A bare name: a context root or a macro variable.
    Ident(String),
    /// `target.field`
    Select {
        /// The operand.
        target: Box<Expr>,
        /// The field name.
        field: String,
        /// Where the field name is.
        field_span: Span,
    },
    /// `target[index]`
    Index {
        /// The operand.
        target: Box<Expr>,
        /// The index or key.
        index: Box<Expr>,
    },
    /// `name(args)` or `target.name(args)`
    Call {
        /// The receiver of a method call.
        target: Option<Box<Expr>>,
        /// The function or method name.
        name: String,
        /// Where the name is.
        name_span: Span,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `!x`, `not x`, `-x`
    Unary {
        /// Which.
        op: UnaryOp,
        /// Where the operator is.
        op_span: Span,
        /// The operand.
        operand: Box<Expr>,
    },
    /// `a OP b`
    Binary {
        /// Which.
        op: BinaryOp,
        /// Where the operator is.
        op_span: Span,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `cond ? then : otherwise`
    Cond {
        /// The condition.
        cond: Box<Expr>,
        /// Value when true.
        then: Box<Expr>,
        /// Value when false.
        otherwise: Box<Expr>,
    },
}

/// How a string literal was written: what a diagnostic suggesting another
/// spelling of it keeps (W0015: a pattern written with doubled
/// backslashes, which a raw string says as meant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StrStyle {
    /// Raw (`r'...'`): backslashes are taken literally.
    pub raw: bool,
    /// The quote character, `'` or `"`.
    pub quote: char,
    /// Triple-quoted (`'''...'''`).
    pub triple: bool,
}

impl StrStyle {
    /// A plain single-quoted literal (`'...'`).
    pub const PLAIN: StrStyle = StrStyle {
        raw: false,
        quote: '\'',
        triple: false,
    };
}

/// Prefix operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `!` or `not`
    Not,
    /// `-`
    Neg,
}

/// Infix operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `a ?? b`: `a`, or `b` when `a` is absent, `null` or an error. The
    /// resolver rewrites it (`has_value(a) ? a : b`), so the IR never holds it.
    Coalesce,
    /// `||` or `or`
    Or,
    /// `&&` or `and`
    And,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `in`
    In,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
}

impl BinaryOp {
    /// The operator as written in the canonical form (`&&`, not `and`).
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Coalesce => "??",
            BinaryOp::Or => "||",
            BinaryOp::And => "&&",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::In => "in",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
        }
    }

    /// Binding strength: higher binds tighter. `?:` is 1 (loosest, not a
    /// `BinaryOp`); `??` binds looser than `||` and tighter than `?:`, as
    /// in C# and JavaScript.
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::Coalesce => 2,
            BinaryOp::Or => 3,
            BinaryOp::And => 4,
            BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge
            | BinaryOp::In => 5,
            BinaryOp::Add | BinaryOp::Sub => 6,
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 7,
        }
    }
}

impl UnaryOp {
    /// The operator as written in the canonical form.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Not => "!",
            UnaryOp::Neg => "-",
        }
    }
}

pub use hookc_runtime::bytecode::path::{is_keyword, KEYWORDS};
