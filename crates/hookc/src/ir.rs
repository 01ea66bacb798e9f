//! The intermediate representation: resolved hook conditions and whole
//! policies, the one form both front ends produce.
//!
//! Compared with the syntax tree, names are resolved (context paths are
//! interned [`PathId`]s, macro variables are [`IrExprKind::Var`]s), methods are
//! builtins, literal lists are constants, and regex patterns are known
//! literals (globs are translated into regexes, keeping their text). The
//! same condition written as a YAML tree or as a `when` expression gives the
//! same IR (tested), and lowering to bytecode walks it directly.

use crate::check::ty::Kinds;
use crate::span::Span;
use hookc_runtime::bytecode::path::{PathId, PathTable};
use std::fmt::{self, Write};

pub use crate::syntax::ast::{BinaryOp, UnaryOp};

/// A constant value: JSON's data model with ints and doubles apart.
#[derive(Debug, Clone, PartialEq)]
pub enum Const {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A 64-bit int.
    Int(i64),
    /// A double.
    Double(f64),
    /// A string.
    String(String),
    /// A list of constants.
    List(Vec<Const>),
    /// An object: a map literal (string keys, constant values), or a YAML `value:` mapping.
    Object(Vec<(String, Const)>),
}

impl Const {
    /// The kinds of this value (a one-kind set).
    pub fn kinds(&self) -> Kinds {
        match self {
            Const::Null => Kinds::NULL,
            Const::Bool(_) => Kinds::BOOL,
            Const::Int(_) => Kinds::INT,
            Const::Double(_) => Kinds::DOUBLE,
            Const::String(_) => Kinds::STRING,
            Const::List(_) => Kinds::LIST,
            Const::Object(_) => Kinds::OBJECT,
        }
    }

    /// As JSON (non-finite doubles become `null`, as JSON has none).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Const::Null => Value::Null,
            Const::Bool(b) => Value::Bool(*b),
            Const::Int(i) => Value::from(*i),
            Const::Double(d) => serde_json::Number::from_f64(*d).map_or(Value::Null, Value::Number),
            Const::String(s) => Value::String(s.clone()),
            Const::List(items) => Value::Array(items.iter().map(Const::to_json).collect()),
            Const::Object(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// From JSON (numbers that fit `i64` are ints).
    pub fn from_json(value: &serde_json::Value) -> Const {
        use serde_json::Value;
        match value {
            Value::Null => Const::Null,
            Value::Bool(b) => Const::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Const::Int(i),
                None => Const::Double(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => Const::String(s.clone()),
            Value::Array(items) => Const::List(items.iter().map(Const::from_json).collect()),
            Value::Object(map) => Const::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), Const::from_json(v)))
                    .collect(),
            ),
        }
    }

    /// JSON-number-aware equality as in CEL: `1 == 1.0`, lists elementwise,
    /// different kinds unequal. Used for enum checks at compile time.
    pub fn equals_json(&self, other: &serde_json::Value) -> bool {
        use serde_json::Value;
        match (self, other) {
            (Const::Null, Value::Null) => true,
            (Const::Bool(a), Value::Bool(b)) => a == b,
            (Const::Int(_) | Const::Double(_), Value::Number(n)) => {
                let a = match self {
                    Const::Int(i) => *i as f64,
                    Const::Double(d) => *d,
                    _ => return false,
                };
                n.as_i64().map_or_else(
                    || n.as_f64() == Some(a),
                    |i| match self {
                        Const::Int(x) => *x == i,
                        _ => a == i as f64,
                    },
                )
            }
            (Const::String(a), Value::String(b)) => a == b,
            (Const::List(a), Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.equals_json(y))
            }
            (Const::Object(a), Value::Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, v)| b.get(k).is_some_and(|w| v.equals_json(w)))
            }
            _ => false,
        }
    }
}

/// A builtin function (methods and global calls alike): a row of the
/// runtime's function table.
pub use hookc_runtime::functions::Builtin;

/// A list macro.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MacroKind {
    /// `l.exists(v, p)`
    Exists,
    /// `l.all(v, p)`
    All,
    /// `l.exists_one(v, p)`
    ExistsOne,
    /// `l.map(v, e)`: the list of `e`'s values.
    Map,
    /// `l.filter(v, p)`: the elements for which `p` is true.
    Filter,
}

impl MacroKind {
    /// The macro's name.
    pub fn name(self) -> &'static str {
        match self {
            MacroKind::Exists => "exists",
            MacroKind::All => "all",
            MacroKind::ExistsOne => "exists_one",
            MacroKind::Map => "map",
            MacroKind::Filter => "filter",
        }
    }
}

/// A regex literal of `matches()` / `op: regex`, or the translation of a
/// glob of `glob()` / `op: glob` ([`crate::check::glob`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Regex {
    /// The pattern (RE2 syntax of the `regex` crate): what lowering, the
    /// artifact, the verifier and the VM see.
    pub pattern: String,
    /// Where the pattern literal is.
    pub span: Span,
    /// The glob as written, when `pattern` is its translation: what users
    /// see (diagnostics, `--emit`, `to_source`) and what the reference
    /// evaluator matches with directly.
    ///
    /// INVARIANT (glob translation): `Some(g)` only from
    /// [`crate::check::glob::regex_of`], so `pattern` is `g`'s translation.
    pub glob: Option<String>,
}

impl Regex {
    /// A regex literal (not a glob).
    pub fn literal(pattern: String, span: Span) -> Regex {
        Regex {
            pattern,
            span,
            glob: None,
        }
    }

    /// The user-facing function name: `glob` or `matches`.
    pub fn func_name(&self) -> &'static str {
        if self.glob.is_some() {
            "glob"
        } else {
            "matches"
        }
    }

    /// The pattern as written: the glob, or the regex.
    pub fn source(&self) -> &str {
        self.glob.as_deref().unwrap_or(&self.pattern)
    }
}

/// A resolved expression.
#[derive(Debug, Clone, PartialEq)]
pub struct IrExpr {
    /// What it is.
    pub kind: IrExprKind,
    /// Its source.
    pub span: Span,
}

/// The forms of the IR.
#[derive(Debug, Clone, PartialEq)]
pub enum IrExprKind {
    /// A constant (literal lists of constants included).
    Const(Const),
    /// A list literal with non-constant items.
    List(Vec<IrExpr>),
    /// A context path.
    Path(PathId),
    /// A macro variable: `depth` counts binders from the outermost (0).
    Var {
        /// Binder depth.
        depth: u32,
        /// The name as written.
        name: String,
    },
    /// A local name (`let:`; `docs/src/semantics.md#local-names`) where a
    /// condition uses it: `body` is its expression, resolved where it is
    /// declared. Its macro variables count binders from its own outermost
    /// (0), whatever binders surround the use: a local's expression sees
    /// no macro variable of the condition that uses it.
    Local {
        /// The name as written.
        name: String,
        /// Its expression (spans where it is declared).
        body: Box<IrExpr>,
    },
    /// `e.name` on a value that is not a context path (a macro variable, ...).
    Field(Box<IrExpr>, String),
    /// `e[i]` with a computed operand or index.
    Index(Box<IrExpr>, Box<IrExpr>),
    /// `has(p)` of a context path: every segment resolves. Never an error.
    HasPath(PathId),
    /// `has(e.name)` of a computed value: `e` is an object with key `name`.
    HasField(Box<IrExpr>, String),
    /// `!e` / `-e`
    Unary(UnaryOp, Box<IrExpr>),
    /// Arithmetic, comparison and `in` (not `&&`/`||`).
    Binary {
        /// Which.
        op: BinaryOp,
        /// Where the operator (or the YAML `op:`) is.
        op_span: Span,
        /// Left operand.
        lhs: Box<IrExpr>,
        /// Right operand.
        rhs: Box<IrExpr>,
    },
    /// `a && b` (CEL error absorption).
    And(Box<IrExpr>, Box<IrExpr>),
    /// `a || b` (CEL error absorption).
    Or(Box<IrExpr>, Box<IrExpr>),
    /// `c ? a : b`
    Cond(Box<IrExpr>, Box<IrExpr>, Box<IrExpr>),
    /// A builtin call; the receiver of a method is the first argument.
    Call(Builtin, Vec<IrExpr>),
    /// A builtin call whose last parameter is a literal pattern (`s.capture(re)`,
    /// `path.match(p, glob)`), compiled at compile time like `matches`'.
    PatternCall {
        /// The function.
        func: Builtin,
        /// Its other arguments, the receiver first.
        args: Vec<IrExpr>,
        /// The pattern.
        pattern: Regex,
    },
    /// `e.matches(pattern)`: unanchored search; also `e.glob(g)`, whose
    /// translation anchors it ([`Regex::glob`]).
    Matches(Box<IrExpr>, Regex),
    /// A list macro over `range`, binding a variable in `body`.
    Macro {
        /// Which macro.
        kind: MacroKind,
        /// The list (or object: its keys).
        range: Box<IrExpr>,
        /// The variable's name.
        var: String,
        /// The predicate.
        body: Box<IrExpr>,
    },
    /// Internal: whether the value's kind is in the set (false when missing).
    /// Produced only by YAML `matches` schemas.
    TypeIs(Box<IrExpr>, Kinds),
    /// A YAML `matches` leaf: `check` is the compiled predicate; the schema is
    /// kept for normalized output.
    SchemaMatch {
        /// The path validated.
        path: PathId,
        /// The JSON-Schema fragment as written.
        schema: serde_json::Value,
        /// The compiled predicate.
        check: Box<IrExpr>,
    },
}

impl IrExpr {
    /// An expression at a span.
    pub fn new(kind: IrExprKind, span: Span) -> IrExpr {
        IrExpr { kind, span }
    }

    /// A constant.
    pub fn constant(c: Const, span: Span) -> IrExpr {
        IrExpr::new(IrExprKind::Const(c), span)
    }

    /// Whether two expressions are the same but for spans.
    pub fn same_as(&self, other: &IrExpr) -> bool {
        fn all(a: &[IrExpr], b: &[IrExpr]) -> bool {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_as(y))
        }
        use IrExprKind as K;
        match (&self.kind, &other.kind) {
            (K::Const(a), K::Const(b)) => a == b,
            (K::List(a), K::List(b)) => all(a, b),
            (K::Path(a), K::Path(b)) | (K::HasPath(a), K::HasPath(b)) => a == b,
            (K::Var { depth: a, name: x }, K::Var { depth: b, name: y }) => a == b && x == y,
            (K::Local { body: a, .. }, K::Local { body: b, .. }) => a.same_as(b),
            (K::Field(a, x), K::Field(b, y)) | (K::HasField(a, x), K::HasField(b, y)) => {
                x == y && a.same_as(b)
            }
            (K::Index(a, i), K::Index(b, j))
            | (K::And(a, i), K::And(b, j))
            | (K::Or(a, i), K::Or(b, j)) => a.same_as(b) && i.same_as(j),
            (K::Unary(o, a), K::Unary(p, b)) => o == p && a.same_as(b),
            (
                K::Binary {
                    op: o,
                    lhs: a,
                    rhs: x,
                    ..
                },
                K::Binary {
                    op: p,
                    lhs: b,
                    rhs: y,
                    ..
                },
            ) => o == p && a.same_as(b) && x.same_as(y),
            (K::Cond(a, x, m), K::Cond(b, y, n)) => a.same_as(b) && x.same_as(y) && m.same_as(n),
            (K::Call(f, a), K::Call(g, b)) => f == g && all(a, b),
            (
                K::PatternCall {
                    func: f,
                    args: a,
                    pattern: r,
                },
                K::PatternCall {
                    func: g,
                    args: b,
                    pattern: s,
                },
            ) => f == g && r.pattern == s.pattern && all(a, b),
            // A glob and a regex with the same translation agree everywhere.
            (K::Matches(a, r), K::Matches(b, s)) => r.pattern == s.pattern && a.same_as(b),
            (
                K::Macro {
                    kind: k,
                    range: a,
                    var: v,
                    body: x,
                },
                K::Macro {
                    kind: l,
                    range: b,
                    var: w,
                    body: y,
                },
            ) => k == l && v == w && a.same_as(b) && x.same_as(y),
            (K::TypeIs(a, k), K::TypeIs(b, l)) => k == l && a.same_as(b),
            (
                K::SchemaMatch {
                    path: p,
                    schema: s,
                    check: a,
                },
                K::SchemaMatch {
                    path: q,
                    schema: t,
                    check: b,
                },
            ) => p == q && s == t && a.same_as(b),
            _ => false,
        }
    }

    /// The expression as canonical `when` text (`&&`, not `and`; minimal
    /// parentheses). `None` if it contains internal forms the surface syntax
    /// cannot express (a `matches` schema).
    pub fn to_source(&self, paths: &PathTable) -> Option<String> {
        let mut out = String::new();
        write_expr(&mut out, self, paths, 0, Style::Source).ok()?;
        Some(out)
    }

    /// The expression for a reader (explain traces, lint messages): its
    /// `when` text, or for a condition tree's type guard, which has none,
    /// `p is a string`, or a local's name. `None` for the other internal
    /// forms.
    pub fn describe(&self, paths: &PathTable) -> Option<String> {
        match &self.kind {
            IrExprKind::TypeIs(x, kinds) => Some(format!(
                "{} is {}",
                x.to_source(paths)?,
                kinds.with_article()
            )),
            _ => {
                let mut out = String::new();
                write_expr(&mut out, self, paths, 0, Style::Reader).ok()?;
                Some(out)
            }
        }
    }

    /// [`IrExpr::to_source`]'s text, with the internal forms written too
    /// (not parseable): a key under which identical expressions meet, for
    /// hash maps that [`IrExpr::same_as`] confirms.
    pub fn key_text(&self, paths: &PathTable) -> String {
        let mut out = String::new();
        // Writing to a `String` fails only on a path id the table lacks,
        // which the key then leaves out.
        let _ = write_expr(&mut out, self, paths, 0, Style::Internal);
        out
    }
}

/// Precedence of an IR node for printing (higher binds tighter).
fn precedence(e: &IrExpr) -> u8 {
    match &e.kind {
        IrExprKind::Cond(..) => 1,
        IrExprKind::Or(..) => BinaryOp::Or.precedence(),
        IrExprKind::And(..) => BinaryOp::And.precedence(),
        IrExprKind::Binary { op, .. } => op.precedence(),
        IrExprKind::Unary(..) => 8,
        // Written as its expression (`to_source`).
        IrExprKind::Local { body, .. } => precedence(body),
        IrExprKind::Const(Const::Int(i)) if *i < 0 => 8,
        IrExprKind::Const(Const::Double(d)) if d.is_sign_negative() => 8,
        _ => 9,
    }
}

fn write_const(out: &mut String, c: &Const) -> Result<(), fmt::Error> {
    match c {
        Const::Null => out.push_str("null"),
        Const::Bool(b) => write!(out, "{b}")?,
        Const::Int(i) => write!(out, "{i}")?,
        Const::Double(d) => {
            if d.is_finite() && d.fract() == 0.0 && d.abs() < 1e16 {
                write!(out, "{d:.1}")?;
            } else if d.is_finite() {
                write!(out, "{d:?}")?;
            } else {
                // No literal for these; the folded forms of CEL.
                out.push_str(if d.is_nan() {
                    "(0.0 / 0.0)"
                } else if *d > 0.0 {
                    "(1.0 / 0.0)"
                } else {
                    "(-1.0 / 0.0)"
                });
            }
        }
        Const::String(s) => hookc_runtime::bytecode::path::write_quoted(out, s)?,
        Const::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_const(out, item)?;
            }
            out.push(']');
        }
        Const::Object(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                hookc_runtime::bytecode::path::write_quoted(out, k)?;
                out.push_str(": ");
                write_const(out, v)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

/// Which text [`write_expr`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// `when` text that compiles to the same IR: locals as their
    /// expressions ([`IrExpr::to_source`]).
    Source,
    /// For a reader: locals by name ([`IrExpr::describe`]).
    Reader,
    /// With the internal forms, for keys ([`IrExpr::key_text`]).
    Internal,
}

fn write_expr(
    out: &mut String,
    e: &IrExpr,
    paths: &PathTable,
    min_prec: u8,
    style: Style,
) -> Result<(), fmt::Error> {
    let prec = match (&e.kind, style) {
        (IrExprKind::Local { .. }, Style::Reader) => 9,
        _ => precedence(e),
    };
    let paren = prec < min_prec;
    if paren {
        out.push('(');
    }
    match &e.kind {
        IrExprKind::Const(c) => write_const(out, c)?,
        IrExprKind::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(out, item, paths, 0, style)?;
            }
            out.push(']');
        }
        IrExprKind::Path(id) => write!(out, "{}", paths.get(*id).ok_or(fmt::Error)?)?,
        IrExprKind::Var { name, .. } => out.push_str(name),
        // For a reader, its name; else its expression, so that the text
        // stands without the `let:` that declares it (`--emit`),
        // parenthesized by its own precedence.
        IrExprKind::Local { name, .. } if style == Style::Reader => out.push_str(name),
        IrExprKind::Local { body, .. } => write_expr(out, body, paths, 0, style)?,
        IrExprKind::Field(base, name) => {
            write_expr(out, base, paths, 9, style)?;
            if hookc_runtime::bytecode::path::is_plain_field(name) {
                write!(out, ".{name}")?;
            } else {
                out.push('[');
                hookc_runtime::bytecode::path::write_quoted(out, name)?;
                out.push(']');
            }
        }
        IrExprKind::Index(base, index) => {
            write_expr(out, base, paths, 9, style)?;
            out.push('[');
            write_expr(out, index, paths, 0, style)?;
            out.push(']');
        }
        IrExprKind::HasPath(id) => write!(out, "has({})", paths.get(*id).ok_or(fmt::Error)?)?,
        IrExprKind::HasField(base, name) => {
            out.push_str("has(");
            let field = IrExpr::new(IrExprKind::Field(base.clone(), name.clone()), e.span);
            write_expr(out, &field, paths, 0, style)?;
            out.push(')');
        }
        IrExprKind::Unary(op, operand) => {
            out.push_str(op.symbol());
            write_expr(out, operand, paths, 8, style)?;
        }
        IrExprKind::Binary { op, lhs, rhs, .. } => {
            // Left-associative: the right side needs parentheses at equal precedence.
            write_expr(out, lhs, paths, op.precedence(), style)?;
            write!(out, " {} ", op.symbol())?;
            write_expr(out, rhs, paths, op.precedence() + 1, style)?;
        }
        IrExprKind::And(a, b) | IrExprKind::Or(a, b) => {
            let sym = if matches!(e.kind, IrExprKind::And(..)) {
                "&&"
            } else {
                "||"
            };
            write_expr(out, a, paths, prec, style)?;
            write!(out, " {sym} ")?;
            write_expr(out, b, paths, prec + 1, style)?;
        }
        IrExprKind::Cond(c, a, b) => {
            write_expr(out, c, paths, 2, style)?;
            out.push_str(" ? ");
            write_expr(out, a, paths, 2, style)?;
            out.push_str(" : ");
            write_expr(out, b, paths, 1, style)?;
        }
        IrExprKind::Call(f, args) => write_call(out, *f, args, None, paths, style)?,
        IrExprKind::PatternCall {
            func,
            args,
            pattern,
        } => write_call(out, *func, args, Some(pattern), paths, style)?,
        IrExprKind::Matches(recv, re) => {
            write_expr(out, recv, paths, 9, style)?;
            write!(out, ".{}(", re.func_name())?;
            hookc_runtime::bytecode::path::write_quoted(out, re.source())?;
            out.push(')');
        }
        IrExprKind::Macro {
            kind,
            range,
            var,
            body,
        } => {
            write_expr(out, range, paths, 9, style)?;
            write!(out, ".{}({var}, ", kind.name())?;
            write_expr(out, body, paths, 0, style)?;
            out.push(')');
        }
        // No surface syntax: written only for keys, marked by a NUL that no
        // `when` text holds.
        IrExprKind::TypeIs(x, kinds) if style == Style::Internal => {
            write!(out, "\u{0}is{}(", kinds.bits())?;
            write_expr(out, x, paths, 0, style)?;
            out.push(')');
        }
        IrExprKind::SchemaMatch { path, schema, .. } if style == Style::Internal => {
            let path = paths.get(*path).ok_or(fmt::Error)?;
            write!(out, "\u{0}schema({path}, {schema})")?;
        }
        IrExprKind::TypeIs(..) | IrExprKind::SchemaMatch { .. } => return Err(fmt::Error),
    }
    if paren {
        out.push(')');
    }
    Ok(())
}

/// A builtin call as written: `recv.name(args)` for a method,
/// `ns.name(args)` or `name(args)` otherwise.
fn write_call(
    out: &mut String,
    f: Builtin,
    args: &[IrExpr],
    pattern: Option<&Regex>,
    paths: &PathTable,
    style: Style,
) -> fmt::Result {
    let def = f.def();
    let rest = match (def.form, args.split_first()) {
        (hookc_runtime::functions::Form::Method, Some((recv, rest))) => {
            write_expr(out, recv, paths, 9, style)?;
            write!(out, ".{}(", def.name)?;
            rest
        }
        (hookc_runtime::functions::Form::Method, None) => return Err(fmt::Error),
        _ => {
            write!(out, "{}(", def.qualified_name())?;
            args
        }
    };
    for (i, a) in rest.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_expr(out, a, paths, 0, style)?;
    }
    if let Some(re) = pattern {
        if !rest.is_empty() {
            out.push_str(", ");
        }
        hookc_runtime::bytecode::path::write_quoted(out, re.source())?;
    }
    out.push(')');
    Ok(())
}

/// The root that the templates of a hook with a pattern table read its
/// row from (`${row.message}`).
pub const ROW_ROOT: &str = "row";

pub use hookc_runtime::bytecode::{Attribution, Combine, Effect, PriorityOrder, Spelled};
