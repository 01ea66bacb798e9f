//! Resolution: syntax tree → IR.
//!
//! Identifiers become context paths or macro variables, chains of selections
//! and constant indexes on a context root become one interned path, methods
//! become builtins, literal lists become constants, and `matches()` and
//! `glob()` patterns must be literals (globs are translated into regexes).
//! Errors are reported and the offending sub-expression is dropped
//! (`None`), so one pass reports every resolution error of an expression.

use crate::check::raw_pattern;
use crate::check::ty::Kinds;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::{Builtin, Const, IrExpr, IrExprKind, MacroKind, Regex};
use crate::suggest;
use crate::syntax::ast::{self, UnaryOp};
use hookc_runtime::bytecode::path::{Path, PathTable, Segment};
use hookc_runtime::functions::{Form, FunctionDef, PatternKind};

/// The special forms' names, for did-you-mean (the function table's are
/// added to them).
const FUNCTIONS: &[&str] = &[
    "has",
    "matches",
    "glob",
    "exists",
    "all",
    "exists_one",
    "map",
    "filter",
];

/// A local name in scope (`let:`; `docs/src/semantics.md#local-names`).
#[derive(Debug, Clone)]
pub struct LocalDef {
    /// The name.
    pub name: String,
    /// Its expression, resolved where it is declared; `None` when it has
    /// errors (reported there: a use adds none).
    pub body: Option<IrExpr>,
    /// Where the name is declared.
    pub declared: crate::span::Span,
    /// Where the expression is written.
    pub span: crate::span::Span,
    /// Whether an expression used it (W0022 when none did).
    pub used: std::cell::Cell<bool>,
    /// The YAML node path of its declaration (`let.cmds`,
    /// `hooks[2].let.cmds`), for the findings in it.
    pub node_path: Option<String>,
}

/// Resolves one expression.
pub struct Resolver<'a> {
    paths: &'a mut PathTable,
    diags: &'a mut Diagnostics,
    /// Macro variables in scope, outermost first.
    scopes: Vec<String>,
    /// Local names in scope, the earliest declared first: the policy's,
    /// then the hook's own.
    locals: [&'a [LocalDef]; 2],
}

/// A value being resolved: either still a context path (so that further
/// selections extend it) or a general expression.
enum Partial {
    Path(Path, crate::span::Span),
    IrExpr(IrExpr),
}

impl<'a> Resolver<'a> {
    /// A resolver interning into `paths` and reporting into `diags`.
    pub fn new(paths: &'a mut PathTable, diags: &'a mut Diagnostics) -> Self {
        Resolver {
            paths,
            diags,
            scopes: Vec::new(),
            locals: [&[], &[]],
        }
    }

    /// The resolver with local names in scope, the policy's and a hook's
    /// own: an identifier that is no macro variable and names one of them
    /// is that local ([`IrExprKind::Local`]), before a context member of
    /// its name.
    pub fn with_locals(mut self, policy: &'a [LocalDef], own: &'a [LocalDef]) -> Self {
        self.locals = [policy, own];
        self
    }

    /// The local `name` in scope, if any: the latest declared.
    fn local(&self, name: &str) -> Option<&'a LocalDef> {
        let [policy, own] = self.locals;
        own.iter()
            .rev()
            .chain(policy.iter().rev())
            .find(|l| l.name == name)
    }

    /// Resolves an expression; `None` if any part failed (reported).
    pub fn resolve(&mut self, e: &ast::Expr) -> Option<IrExpr> {
        let p = self.partial(e)?;
        Some(self.finish(p))
    }

    fn finish(&mut self, p: Partial) -> IrExpr {
        match p {
            Partial::Path(path, span) => {
                IrExpr::new(IrExprKind::Path(self.paths.intern(path)), span)
            }
            Partial::IrExpr(e) => e,
        }
    }

    fn partial(&mut self, e: &ast::Expr) -> Option<Partial> {
        use ast::ExprKind as A;
        let span = e.span;
        let kind = match &e.kind {
            A::Null => IrExprKind::Const(Const::Null),
            A::Bool(b) => IrExprKind::Const(Const::Bool(*b)),
            A::Int(i) => IrExprKind::Const(Const::Int(*i)),
            A::Double(d) => IrExprKind::Const(Const::Double(*d)),
            A::String(s, _) => IrExprKind::Const(Const::String(s.clone())),
            A::List(items) => {
                let items = self.all(items)?;
                list(items)
            }
            A::Map(entries) => self.map(entries)?,
            A::Ident(name) => {
                if let Some(depth) = self.scopes.iter().rposition(|v| v == name) {
                    IrExprKind::Var {
                        depth: u32::try_from(depth).unwrap_or(u32::MAX),
                        name: name.clone(),
                    }
                } else if let Some(local) = self.local(name) {
                    local.used.set(true);
                    // A local with errors was reported where it is declared.
                    IrExprKind::Local {
                        name: name.clone(),
                        body: Box::new(local.body.clone()?),
                    }
                } else {
                    return Some(Partial::Path(Path::root(name.clone()), span));
                }
            }
            A::Select { target, field, .. } => match self.partial(target)? {
                Partial::Path(p, _) => {
                    return Some(Partial::Path(p.child(Segment::Field(field.clone())), span))
                }
                Partial::IrExpr(base) => IrExprKind::Field(Box::new(base), field.clone()),
            },
            A::Index { target, index } => {
                let base = self.partial(target)?;
                let index = self.resolve(index)?;
                match (base, &index.kind) {
                    (Partial::Path(p, _), IrExprKind::Const(Const::String(k))) => {
                        return Some(Partial::Path(p.child(Segment::Field(k.clone())), span))
                    }
                    (Partial::Path(p, _), IrExprKind::Const(Const::Int(i))) => {
                        return Some(Partial::Path(p.child(Segment::Index(*i)), span))
                    }
                    (base, _) => {
                        let base = self.finish(base);
                        IrExprKind::Index(Box::new(base), Box::new(index))
                    }
                }
            }
            A::Call {
                target,
                name,
                name_span,
                args,
            } => {
                return self
                    .call(e, target.as_deref(), name, *name_span, args)
                    .map(Partial::IrExpr)
            }
            A::Unary { op, operand, .. } => {
                let operand = self.resolve(operand)?;
                match (op, &operand.kind) {
                    // Fold `-` into numeric constants so that `-1.5` in a `when`
                    // and `-1.5` in YAML give the same IR.
                    (UnaryOp::Neg, IrExprKind::Const(Const::Double(d))) => {
                        IrExprKind::Const(Const::Double(-d))
                    }
                    (UnaryOp::Neg, IrExprKind::Const(Const::Int(i)))
                        if i.checked_neg().is_some() =>
                    {
                        IrExprKind::Const(Const::Int(-i))
                    }
                    _ => IrExprKind::Unary(*op, Box::new(operand)),
                }
            }
            A::Binary {
                op,
                op_span,
                lhs,
                rhs,
            } => {
                let lhs = self.resolve(lhs);
                let rhs = self.resolve(rhs);
                let (lhs, rhs) = (Box::new(lhs?), Box::new(rhs?));
                match op {
                    // `a ?? b` is `a` when it is a value other than `null`
                    // (a kind test is `false` for an error, and an absent
                    // path is an error), else `b`: existing instructions,
                    // `a` evaluated twice when it is not `null`.
                    ast::BinaryOp::Coalesce => {
                        let non_null = Kinds::ANY.and(Kinds::from_bits(!Kinds::NULL.bits()));
                        let test = IrExpr::new(IrExprKind::TypeIs(lhs.clone(), non_null), lhs.span);
                        IrExprKind::Cond(Box::new(test), lhs, rhs)
                    }
                    ast::BinaryOp::And => IrExprKind::And(lhs, rhs),
                    ast::BinaryOp::Or => IrExprKind::Or(lhs, rhs),
                    op => IrExprKind::Binary {
                        op: *op,
                        op_span: *op_span,
                        lhs,
                        rhs,
                    },
                }
            }
            A::Cond {
                cond,
                then,
                otherwise,
            } => {
                let c = self.resolve(cond);
                let a = self.resolve(then);
                let b = self.resolve(otherwise);
                IrExprKind::Cond(Box::new(c?), Box::new(a?), Box::new(b?))
            }
        };
        Some(Partial::IrExpr(IrExpr::new(kind, span)))
    }

    /// Resolves every item, reporting all failures.
    fn all(&mut self, items: &[ast::Expr]) -> Option<Vec<IrExpr>> {
        let resolved: Vec<Option<IrExpr>> = items.iter().map(|i| self.resolve(i)).collect();
        resolved.into_iter().collect()
    }

    fn call(
        &mut self,
        whole: &ast::Expr,
        target: Option<&ast::Expr>,
        name: &str,
        name_span: crate::span::Span,
        args: &[ast::Expr],
    ) -> Option<IrExpr> {
        let span = whole.span;
        let arity = |n: usize, diags: &mut Diagnostics, form: &str| -> Option<()> {
            if args.len() == n {
                return Some(());
            }
            diags.push(
                Diagnostic::new(
                    Code::WrongArity,
                    format!(
                        "`{name}` takes {n} argument{}, found {}",
                        if n == 1 { "" } else { "s" },
                        args.len()
                    ),
                )
                .at(name_span)
                .help(format!("write `{form}`")),
            );
            None
        };
        let kind = match (target, name) {
            (None, "has") => {
                arity(1, self.diags, "has(a.b)")?;
                let arg = args.first()?;
                match self.partial(arg)? {
                    Partial::Path(p, _) => IrExprKind::HasPath(self.paths.intern(p)),
                    Partial::IrExpr(IrExpr {
                        kind: IrExprKind::Field(base, field),
                        ..
                    }) => IrExprKind::HasField(base, field),
                    Partial::IrExpr(other) => {
                        self.diags.push(
                            Diagnostic::new(
                                Code::BadHasArgument,
                                "`has()` needs a field selection",
                            )
                            .at(other.span)
                            .label("not a field selection")
                            .help("write `has(a.b)` to test whether `a` has the key `b`"),
                        );
                        return None;
                    }
                }
            }
            (Some(t), "matches" | "glob") => {
                arity(1, self.diags, &format!("s.{name}('pattern')"))?;
                let recv = self.resolve(t)?;
                let pattern = args.first()?;
                return self.pattern(name, recv, pattern, span);
            }
            (None, "matches" | "glob") => {
                arity(2, self.diags, &format!("{name}(s, 'pattern')"))?;
                let recv = self.resolve(args.first()?)?;
                return self.pattern(name, recv, args.get(1)?, span);
            }
            (Some(t), "exists" | "all" | "exists_one" | "map" | "filter") => {
                let kind = match name {
                    "exists" => MacroKind::Exists,
                    "all" => MacroKind::All,
                    "map" => MacroKind::Map,
                    "filter" => MacroKind::Filter,
                    _ => MacroKind::ExistsOne,
                };
                let body = if kind == MacroKind::Map {
                    "value"
                } else {
                    "predicate"
                };
                arity(2, self.diags, &format!("list.{name}(x, {body})"))?;
                let range = self.resolve(t)?;
                let var_expr = args.first()?;
                let ast::ExprKind::Ident(var) = &var_expr.kind else {
                    self.diags.push(
                        Diagnostic::new(
                            Code::ExprSyntax,
                            format!("the first argument of `{name}` must be a variable name"),
                        )
                        .at(var_expr.span)
                        .help(format!("write `list.{name}(x, predicate)`")),
                    );
                    return None;
                };
                self.scopes.push(var.clone());
                let body = self.resolve(args.get(1)?);
                self.scopes.pop();
                IrExprKind::Macro {
                    kind,
                    range: Box::new(range),
                    var: var.clone(),
                    body: Box::new(body?),
                }
            }
            (target, _) => return self.builtin(target, name, name_span, args, span),
        };
        Some(IrExpr::new(kind, span))
    }

    /// A call of the function table ([`hookc_runtime::functions`]): a
    /// namespaced global (`path.base(p)`: the target is a namespace's name
    /// and no macro variable), a method (`s.trim()`) or a global
    /// (`size(x)`), chosen by name and number of arguments.
    fn builtin(
        &mut self,
        target: Option<&ast::Expr>,
        name: &str,
        name_span: crate::span::Span,
        args: &[ast::Expr],
        span: crate::span::Span,
    ) -> Option<IrExpr> {
        let namespace = match target.map(|t| &t.kind) {
            Some(ast::ExprKind::Ident(ns))
                if !self.scopes.iter().any(|v| v == ns)
                    && self.local(ns).is_none()
                    && Builtin::ALL
                        .iter()
                        .any(|f| f.def().namespace == Some(ns) && f.def().name == name) =>
            {
                Some(ns.as_str())
            }
            _ => None,
        };
        let receiver = if namespace.is_some() { None } else { target };
        let given = args.len() + usize::from(receiver.is_some());
        let candidates: Vec<Builtin> = Builtin::ALL
            .iter()
            .copied()
            .filter(|f| {
                let d = f.def();
                d.name == name
                    && d.namespace == namespace
                    && matches!(
                        (receiver.is_some(), d.form),
                        (true, Form::Method | Form::Both) | (false, Form::Global | Form::Both)
                    )
            })
            .collect();
        let Some(&func) = candidates.iter().find(|f| f.def().params.len() == given) else {
            let shown = match namespace {
                Some(ns) => format!("{ns}.{name}"),
                None => name.to_owned(),
            };
            let d = if !candidates.is_empty() {
                let forms: Vec<String> = candidates
                    .iter()
                    .map(|f| format!("`{}`", f.def().usage()))
                    .collect();
                let counts: Vec<usize> = candidates
                    .iter()
                    .map(|f| f.def().params.len() - usize::from(receiver.is_some()))
                    .collect();
                let shown_counts: Vec<String> = counts.iter().map(usize::to_string).collect();
                let plural = if counts.last() == Some(&1) { "" } else { "s" };
                Diagnostic::new(
                    Code::WrongArity,
                    format!(
                        "`{shown}` takes {} argument{plural}, found {}",
                        shown_counts.join(" or "),
                        args.len()
                    ),
                )
                .at(name_span)
                .help(format!("write {}", forms.join(" or ")))
            } else {
                let what = if receiver.is_some() {
                    "method"
                } else {
                    "function"
                };
                let names = FUNCTIONS
                    .iter()
                    .map(|n| n.to_string())
                    .chain(Builtin::ALL.iter().map(|f| f.def().qualified_name()));
                let names: Vec<String> = names.collect();
                Diagnostic::new(Code::UnknownFunction, format!("unknown {what} `{shown}`"))
                    .at(name_span)
                    .maybe_help(suggest::help_for(&shown, names.iter().map(String::as_str)))
            };
            self.diags.push(d);
            return None;
        };
        let def = func.def();
        let mut exprs: Vec<&ast::Expr> = receiver.into_iter().chain(args).collect();
        let pattern = match def.pattern() {
            Some(kind) => {
                let lit = exprs.pop()?;
                Some(self.pattern_literal(def, kind, lit)?)
            }
            None => None,
        };
        let mut resolved = Vec::with_capacity(exprs.len());
        let mut failed = false;
        for e in exprs {
            match self.resolve(e) {
                Some(r) => resolved.push(r),
                None => failed = true,
            }
        }
        if failed {
            return None;
        }
        let kind = match pattern {
            Some(pattern) => IrExprKind::PatternCall {
                func,
                args: resolved,
                pattern,
            },
            None => IrExprKind::Call(func, resolved),
        };
        Some(IrExpr::new(kind, span))
    }

    /// The literal pattern argument of a table function.
    fn pattern_literal(
        &mut self,
        def: &FunctionDef,
        kind: PatternKind,
        lit: &ast::Expr,
    ) -> Option<Regex> {
        let ast::ExprKind::String(p, style) = &lit.kind else {
            self.diags.push(
                Diagnostic::new(
                    Code::NonLiteralPattern,
                    format!(
                        "the pattern of `{}` must be a string literal",
                        def.qualified_name()
                    ),
                )
                .at(lit.span)
                .help(
                    "patterns are compiled once, at compile time; write the pattern as a literal",
                ),
            );
            return None;
        };
        if !style.raw && raw_pattern::has_doubled_backslashes(p) {
            if let Some(fix) = raw_pattern::raw_literal(p, *style) {
                let what = format!("the pattern of `{}`", def.qualified_name());
                self.diags
                    .push(raw_pattern::diagnostic(&what, false, &fix, lit.span));
            }
        }
        match kind {
            PatternKind::Regex => Some(Regex::literal(p.clone(), lit.span)),
            PatternKind::PathGlob => match crate::check::glob::path_regex_of(p, lit.span) {
                Ok(re) => Some(re),
                Err(e) => {
                    let at = lit.span;
                    self.diags
                        .push(e.diagnostic(p, |a, b| content_span(at, p, a, b)));
                    None
                }
            },
        }
    }

    /// A map literal: a constant object, its keys string literals and its
    /// values constants (a lookup table: `{'Bash': 'run'}[tool_name]`,
    /// `m.get(k, default)`). Every entry is checked, so one pass reports
    /// every bad key and value.
    fn map(&mut self, entries: &[(ast::Expr, ast::Expr)]) -> Option<IrExprKind> {
        let mut out: Vec<(String, Const)> = Vec::with_capacity(entries.len());
        let mut failed = false;
        for (key, value) in entries {
            let ast::ExprKind::String(k, _) = &key.kind else {
                self.diags.push(
                    Diagnostic::new(Code::ExprSyntax, "map keys must be string literals")
                        .at(key.span)
                        .label("not a string literal")
                        .help("write the key in quotes: `{'Bash': 'run'}`"),
                );
                failed = true;
                continue;
            };
            if out.iter().any(|(seen, _)| seen == k) {
                self.diags.push(
                    Diagnostic::new(Code::ExprSyntax, format!("map key `{k}` is given twice"))
                        .at(key.span)
                        .label("repeated key")
                        .help("give each key once"),
                );
                failed = true;
                continue;
            }
            match self.resolve(value).map(|v| v.kind) {
                Some(IrExprKind::Const(c)) => out.push((k.clone(), c)),
                Some(_) => {
                    self.diags.push(
                        Diagnostic::new(Code::ExprSyntax, "map values must be constants")
                            .at(value.span)
                            .label("computed from the context")
                            .help("a map literal is a lookup table of constants; compute the value after looking it up, or use `?:`"),
                    );
                    failed = true;
                }
                None => failed = true,
            }
        }
        (!failed).then_some(IrExprKind::Const(Const::Object(out)))
    }

    /// `recv.matches(pattern)` or `recv.glob(pattern)` (`func`): the pattern
    /// must be a literal; a glob is translated into a regex here.
    fn pattern(
        &mut self,
        func: &str,
        recv: IrExpr,
        pattern: &ast::Expr,
        span: crate::span::Span,
    ) -> Option<IrExpr> {
        let ast::ExprKind::String(p, style) = &pattern.kind else {
            let what = if func == "glob" { "glob" } else { "regex" };
            self.diags.push(
                Diagnostic::new(
                    Code::NonLiteralPattern,
                    format!("the pattern of `{func}` must be a string literal"),
                )
                .at(pattern.span)
                .help(format!(
                    "patterns are compiled once, at compile time; write the {what} as a literal"
                )),
            );
            return None;
        };
        let re = if func == "glob" {
            let lit = pattern.span;
            match crate::check::glob::regex_of(p, lit) {
                Ok(re) => re,
                Err(e) => {
                    self.diags
                        .push(e.diagnostic(p, |a, b| content_span(lit, p, a, b)));
                    return None;
                }
            }
        } else {
            Regex::literal(p.clone(), pattern.span)
        };
        if !style.raw && raw_pattern::has_doubled_backslashes(p) {
            if let Some(fix) = raw_pattern::raw_literal(p, *style) {
                let what = format!("the pattern of `{func}`");
                self.diags
                    .push(raw_pattern::diagnostic(&what, false, &fix, pattern.span));
            }
        }
        Some(IrExpr::new(IrExprKind::Matches(Box::new(recv), re), span))
    }
}

/// The file span of bytes `start..end` of a string literal's value, given
/// the literal's span: exact when the literal is the value between two
/// quotes, the whole literal otherwise.
///
/// The literal is verbatim exactly when its span is two bytes longer than
/// its value: every escape is longer than what it stands for, a raw or
/// triple-quoted literal has a longer opening, and a literal whose text was
/// unescaped on the way (YAML escapes, XML entities: `Origin::Whole`) spans
/// the whole scalar, which holds more than the literal.
fn content_span(
    lit: crate::span::Span,
    value: &str,
    start: usize,
    end: usize,
) -> crate::span::Span {
    let verbatim = lit.range().len() == value.len() + 2;
    if verbatim {
        let base = lit.start as usize + 1;
        crate::span::Span::new(lit.file, base + start, base + end)
    } else {
        lit
    }
}

/// A list literal: a constant when every item is one.
pub(crate) fn list(items: Vec<IrExpr>) -> IrExprKind {
    if items.iter().all(|i| matches!(i.kind, IrExprKind::Const(_))) {
        let consts = items
            .into_iter()
            .filter_map(|i| match i.kind {
                IrExprKind::Const(c) => Some(c),
                _ => None,
            })
            .collect();
        IrExprKind::Const(Const::List(consts))
    } else {
        IrExprKind::List(items)
    }
}
