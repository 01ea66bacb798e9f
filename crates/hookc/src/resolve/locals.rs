//! Local names (`let:`; `docs/src/semantics.md#local-names`): each
//! declaration of a scope (the policy's, then a hook's own) resolved once,
//! where it is declared, with the names declared before it in scope.
//!
//! A name is declared once: a second declaration in the policy, or a
//! hook's name that is also the policy's, is E0116, as is a name the
//! context schema declares as a member (the local would hide it). A
//! local's expression is type-checked where a condition uses it, against
//! the events of that hook ([`crate::check::typeck`]); its findings are
//! named by its declaration's node path ([`node_of`]).

use super::ast_to_ir::{LocalDef, Resolver};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::RawLocal;
use crate::span::{SourceMap, Span};
use hookc_runtime::bytecode::path::PathTable;

/// Where a scope's declarations are, for names and messages.
pub struct LocalScope<'a> {
    /// The node path of the mapping (`let`, `hooks[2].let`); `None` for
    /// XML.
    pub node_path: Option<&'a str>,
    /// Whether `name` is a member the context schema declares.
    pub is_member: &'a dyn Fn(&str) -> bool,
    /// The sources, for the location of a first declaration.
    pub sources: &'a SourceMap,
}

/// The locals of `raw` resolved in order, appended to `own`, with
/// `policy` (and `own`'s earlier names) in scope. A declaration with an
/// error is kept with no expression, so that its uses add no error.
pub fn resolve(
    raw: &[RawLocal],
    policy: &[LocalDef],
    own: &mut Vec<LocalDef>,
    scope: &LocalScope<'_>,
    paths: &mut PathTable,
    diags: &mut Diagnostics,
) {
    for local in raw {
        let name = &local.name.value;
        let node_path = scope.node_path.map(|p| format!("{p}.{name}"));
        let earlier = own
            .iter()
            .chain(policy)
            .find(|l| l.name == *name)
            .map(|l| l.declared);
        let clash = match earlier {
            Some(first) => Some(
                Diagnostic::new(
                    Code::LocalName,
                    format!("local name `{name}` is declared twice"),
                )
                .note(format!(
                    "first declared at {}",
                    scope.sources.location(first)
                ))
                .help("give one of them another name"),
            ),
            None if (scope.is_member)(name) => Some(
                Diagnostic::new(
                    Code::LocalName,
                    format!("local name `{name}` is a member of the context"),
                )
                .label("it would hide the member")
                .help(format!("name it otherwise (`{name}_value`, `my_{name}`)")),
            ),
            None => None,
        };
        let body = match clash {
            Some(d) => {
                diags.push(named(d.at(local.name.span), node_path.as_deref()));
                None
            }
            None => {
                let mut found = Diagnostics::new();
                let body = match crate::syntax::parse(&local.text, local.origin) {
                    Ok(ast) => Resolver::new(paths, &mut found)
                        .with_locals(policy, own)
                        .resolve(&ast),
                    Err(d) => {
                        found.push(d);
                        None
                    }
                };
                for d in found.into_vec() {
                    diags.push(named(d, node_path.as_deref()));
                }
                body
            }
        };
        own.push(LocalDef {
            name: name.clone(),
            body,
            declared: local.name.span,
            span: local.span,
            used: std::cell::Cell::new(false),
            node_path,
        });
    }
}

/// W0022 for each local of `scope` that no expression used (one with
/// errors is reported already).
pub fn report_unused(scope: &[LocalDef], diags: &mut Diagnostics) {
    for local in scope.iter().filter(|l| !l.used.get() && l.body.is_some()) {
        let d = Diagnostic::new(
            Code::UnusedLocal,
            format!("local name `{}` is never used", local.name),
        )
        .at(local.declared)
        .label("no condition uses it")
        .help("use it in a hook's `when`, or remove it");
        diags.push(named(d, local.node_path.as_deref()));
    }
}

/// `d` named by `node_path`, unless it names a node already.
fn named(d: Diagnostic, node_path: Option<&str>) -> Diagnostic {
    match node_path {
        Some(p) => d.node(p),
        None => d,
    }
}

/// The node path of the local whose expression holds `span`, if one of
/// `scopes` does.
pub fn node_of(scopes: [&[LocalDef]; 2], span: Span) -> Option<&str> {
    scopes
        .into_iter()
        .flatten()
        .find(|l| l.span.file == span.file && l.span.start <= span.start && span.end <= l.span.end)
        .and_then(|l| l.node_path.as_deref())
}
