//! Paths written in policy text (`error.headers['retry-after']`): read from a
//! parsed expression or parsed from a YAML `path:` / template `${...}`. The
//! [`Path`] type itself belongs to the runtime's bytecode.

use crate::diag::{Code, Diagnostic};
use crate::span::{Origin, Span};
use crate::syntax::ast::{Expr, ExprKind};
use hookc_runtime::bytecode::{Path, Segment};

/// The path read from a syntax tree of identifiers, selections and
/// constant indexes (`a.b['c'][0]`); `None` for anything else.
pub fn from_ast(expr: &Expr) -> Option<Path> {
    match &expr.kind {
        ExprKind::Ident(name) => Some(Path::root(name.clone())),
        ExprKind::Select { target, field, .. } => {
            Some(from_ast(target)?.child(Segment::Field(field.clone())))
        }
        ExprKind::Index { target, index } => {
            let seg = match &index.kind {
                ExprKind::String(s, _) => Segment::Field(s.clone()),
                ExprKind::Int(i) => Segment::Index(*i),
                _ => return None,
            };
            Some(from_ast(target)?.child(seg))
        }
        _ => None,
    }
}

/// Parses a path as written in a YAML `path:` or a `${...}` template.
#[allow(clippy::result_large_err)] // cold: compile time only, one per bad path
pub fn parse(text: &str, origin: Origin) -> Result<(Path, Span), Diagnostic> {
    let expr = crate::syntax::parse(text, origin)?;
    match from_ast(&expr) {
        Some(p) => Ok((p, expr.span)),
        None => Err(Diagnostic::new(
            Code::InvalidPath,
            format!("`{}` is not a path", text.trim()),
        )
        .at(expr.span)
        .label("expected a path")
        .help("a path is a name followed by `.field`, `['key']` or `[index]`, e.g. `error.headers['retry-after']`")),
    }
}
