//! Resolution: YAML condition trees → IR.
//!
//! A tree means what seed 000's Python evaluator means
//! (`docs/src/semantics.md#condition-trees`): an absent path reads as
//! `null`, `eq`, `ne`, `in` and `exists` compare with it, the string
//! operators are false on a non-string, an ordering comparison that Python
//! cannot make is an error, and `all`/`any` run left to right, stopping at
//! the first `false`/`true` and at the first error. Each leaf is lowered to
//! ordinary IR of exactly that meaning ([`leaf_ir`]), so the checker, the
//! lints and the lowering need nothing new: `eq v` is `p == v && has(p)`,
//! `ne v` is `!has(p) || p != v`, `contains` is
//! `p.contains(v) && p is string`; `glob` is translated into a regex
//! ([`crate::check::glob`]); `matches` compiles a JSON-Schema fragment into
//! a predicate. Combinators are joined by [`join`]: with CEL's `&&`/`||`
//! where that is exact, with `?:` where CEL's error absorption would differ
//! from Python's left-to-right raise.
//!
//! Every IR node made from a YAML node is recorded with that node's path, so
//! that later stages' diagnostics can name it (`hooks[2].condition.all[0].op`).

use crate::check::ty::Kinds;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::{Node, NodeKind};
use crate::frontend::yaml_doc;
use crate::ir::{BinaryOp, Builtin, Const, IrExpr, IrExprKind, Regex, UnaryOp};
use crate::span::Span;
use crate::suggest;
use hookc_runtime::bytecode::path::{Path, PathId, PathTable, Segment};
use hookc_runtime::functions::PatternKind;

/// The operators of condition leaves.
pub const OPERATORS: &[&str] = &[
    "eq",
    "ne",
    "gt",
    "gte",
    "lt",
    "lte",
    "in",
    "contains",
    "starts_with",
    "ends_with",
    "regex",
    "glob",
    "path_match",
    "runs",
    "exists",
    "matches",
];

/// Spellings of the operators that other rule languages use, each with the
/// operator of [`OPERATORS`] it means: an unknown `op` is one of these more
/// often than a typo, and edit distance cannot see that `equals` is `eq`.
const OPERATOR_SPELLINGS: &[(&str, &str)] = &[
    ("==", "eq"),
    ("=", "eq"),
    ("equal", "eq"),
    ("equals", "eq"),
    ("is", "eq"),
    ("!=", "ne"),
    ("neq", "ne"),
    ("not_equal", "ne"),
    ("not_equals", "ne"),
    (">", "gt"),
    ("greater_than", "gt"),
    (">=", "gte"),
    ("ge", "gte"),
    ("greater_than_or_equal", "gte"),
    ("<", "lt"),
    ("less_than", "lt"),
    ("<=", "lte"),
    ("le", "lte"),
    ("less_than_or_equal", "lte"),
    ("one_of", "in"),
    ("includes", "contains"),
    ("has", "exists"),
    ("present", "exists"),
    ("startswith", "starts_with"),
    ("startsWith", "starts_with"),
    ("prefix", "starts_with"),
    ("endswith", "ends_with"),
    ("endsWith", "ends_with"),
    ("suffix", "ends_with"),
    ("=~", "regex"),
    ("regexp", "regex"),
    ("match", "regex"),
];

/// The `help:` of an unknown operator: the operator another language's
/// spelling means, else the closest by edit distance, else the list.
fn operator_help(op: &str) -> Option<String> {
    match OPERATOR_SPELLINGS
        .iter()
        .find(|(spelling, _)| *spelling == op)
    {
        Some((_, meant)) => Some(format!("did you mean `{meant}`?")),
        None => suggest::help_for(op, OPERATORS.iter().copied()),
    }
}

/// The keys of a condition tree node: a combinator or a leaf.
pub const NODE_KEYS: &[&str] = &["all", "any", "not", "path", "op", "value"];

/// The JSON-Schema keywords a `matches` leaf's value may use.
pub const SCHEMA_KEYWORDS: &[&str] = &[
    "type",
    "const",
    "enum",
    "required",
    "properties",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
];

/// Converts condition trees of one file.
pub struct TreeResolver<'a> {
    /// The file's text (for precise spans inside `path:` scalars).
    pub text: &'a str,
    /// Where paths are interned.
    pub paths: &'a mut PathTable,
    /// Where problems go.
    pub diags: &'a mut Diagnostics,
    /// Spans of the IR nodes made, with their YAML node paths.
    pub node_paths: Vec<(Span, String)>,
}

/// A condition (sub)tree resolved.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// Its IR.
    pub expr: IrExpr,
    /// Whether it can be an error (where the seed's Python raises): decides
    /// how [`join`] may join it.
    pub may_error: bool,
    /// The tree as normalized output writes it (`hookc compile --emit`):
    /// canonical paths, values as JSON.
    pub tree: serde_json::Value,
}

impl TreeResolver<'_> {
    /// W0015 for a pattern `value` (`what`: the `regex` value, ...) written as a double-quoted
    /// YAML scalar holding `\\` (`docs/src/reference/diagnostics.md`, W0015).
    fn doubled_backslashes(&mut self, what: &str, pattern: &str, value: &Node, at: &str) {
        let double_quoted = self
            .text
            .get(value.span.start as usize..)
            .is_some_and(|t| t.starts_with('"'));
        if !double_quoted || !crate::check::raw_pattern::has_doubled_backslashes(pattern) {
            return;
        }
        if let Some(fix) = crate::check::raw_pattern::yaml_single_quoted(pattern) {
            self.diags
                .push(crate::check::raw_pattern::diagnostic(what, true, &fix, value.span).node(at));
        }
    }

    /// Converts a condition tree at YAML node path `at`.
    pub fn resolve(&mut self, node: &Node, at: &str) -> Option<Resolved> {
        self.node(node, at, 0)
    }

    fn node(&mut self, node: &Node, at: &str, depth: usize) -> Option<Resolved> {
        if depth > hookc_runtime::limits::MAX_DOC_DEPTH {
            self.diags.push(
                Diagnostic::new(
                    Code::TooDeep,
                    format!(
                        "condition nested deeper than {}",
                        hookc_runtime::limits::MAX_DOC_DEPTH
                    ),
                )
                .at(node.span)
                .node(at),
            );
            return None;
        }
        let Some(entries) = node.as_map() else {
            self.diags.push(
                Diagnostic::new(
                    Code::WrongShape,
                    format!("expected a condition (a mapping with `all`, `any`, `not` or `path`), found {}", node.kind_name()),
                )
                .at(node.span)
                .node(at),
            );
            return None;
        };
        let mut ok = true;
        for (key, _) in entries {
            if !NODE_KEYS.contains(&key.name.as_str()) {
                self.diags.push(
                    Diagnostic::new(
                        Code::UnknownKey,
                        format!("unknown condition key `{}`", key.name),
                    )
                    .at(key.span)
                    .node(format!("{at}.{}", key.name))
                    .maybe_help(suggest::help_for(&key.name, NODE_KEYS.iter().copied())),
                );
                ok = false;
            }
        }
        let combinators: Vec<&str> = ["all", "any", "not", "path"]
            .into_iter()
            .filter(|k| node.get(k).is_some())
            .collect();
        if combinators.len() > 1 {
            self.diags.push(
                Diagnostic::new(
                    Code::WrongShape,
                    format!(
                        "a condition has exactly one of `all`, `any`, `not` or a leaf (`path`); found {}",
                        combinators.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(" and ")
                    ),
                )
                .at(node.span)
                .node(at)
                .help("wrap several conditions in `all: [...]` or `any: [...]`"),
            );
            return None;
        }
        if !ok {
            return None;
        }
        let resolved = if let Some(items) = node.get("all") {
            self.fold(items, &format!("{at}.all"), depth, true)?
        } else if let Some(items) = node.get("any") {
            self.fold(items, &format!("{at}.any"), depth, false)?
        } else if let Some(inner) = node.get("not") {
            let inner = self.node(inner, &format!("{at}.not"), depth + 1)?;
            // Python's `not` negates; a raise passes through, as CEL's `!`
            // passes an error on.
            Resolved {
                expr: IrExpr::new(
                    IrExprKind::Unary(UnaryOp::Not, Box::new(inner.expr)),
                    node.span,
                ),
                may_error: inner.may_error,
                tree: serde_json::json!({ "not": inner.tree }),
            }
        } else {
            self.leaf(node, at)?
        };
        self.node_paths.push((resolved.expr.span, at.to_owned()));
        Some(resolved)
    }

    /// `all`/`any`: see [`join`].
    fn fold(&mut self, items: &Node, at: &str, depth: usize, is_all: bool) -> Option<Resolved> {
        let Some(seq) = items.as_seq() else {
            self.diags.push(
                Diagnostic::new(
                    Code::WrongShape,
                    format!("expected a list of conditions, found {}", items.kind_name()),
                )
                .at(items.span)
                .node(at),
            );
            return None;
        };
        let converted: Vec<Option<Resolved>> = seq
            .iter()
            .enumerate()
            .map(|(i, c)| self.node(c, &format!("{at}[{i}]"), depth + 1))
            .collect();
        let converted: Vec<Resolved> = converted.into_iter().collect::<Option<_>>()?;
        let key = if is_all { "all" } else { "any" };
        let tree = serde_json::json!({ key: converted.iter().map(|r| r.tree.clone()).collect::<Vec<_>>() });
        let (expr, may_error) = join(
            converted
                .into_iter()
                .map(|r| (r.expr, r.may_error))
                .collect(),
            is_all,
            items.span,
        );
        Some(Resolved {
            expr,
            may_error,
            tree,
        })
    }

    fn leaf(&mut self, node: &Node, at: &str) -> Option<Resolved> {
        let path_node = node.get("path");
        let op_node = node.get("op");
        let (Some(path_node), Some(op_node)) = (path_node, op_node) else {
            let missing = if path_node.is_none() { "path" } else { "op" };
            self.diags.push(
                Diagnostic::new(
                    Code::MissingKey,
                    format!("condition leaf has no `{missing}`"),
                )
                .at(node.span)
                .node(at)
                .help("a leaf is `{path: P, op: OP, value: V}`"),
            );
            return None;
        };
        let path = self.path(path_node, &format!("{at}.path"));
        let Some(op) = op_node.as_str() else {
            self.diags.push(
                Diagnostic::new(
                    Code::WrongShape,
                    format!("`op` must be a string, found {}", op_node.kind_name()),
                )
                .at(op_node.span)
                .node(format!("{at}.op")),
            );
            return None;
        };
        if !OPERATORS.contains(&op) {
            self.diags.push(
                Diagnostic::new(Code::UnknownOperator, format!("unknown operator `{op}`"))
                    .at(op_node.span)
                    .node(format!("{at}.op"))
                    .maybe_help(operator_help(op)),
            );
            return None;
        }
        let value = node.get("value");
        // Findings on a leaf's parts name the part (`...op`, `...value`).
        self.node_paths.push((path_node.span, format!("{at}.path")));
        self.node_paths.push((op_node.span, format!("{at}.op")));
        if let Some(v) = value {
            self.node_paths.push((v.span, format!("{at}.value")));
        }
        let (pid, path_span) = path?;
        let op_span = op_node.span;
        let subject = || IrExpr::new(IrExprKind::Path(pid), path_span);
        let path_text = self.paths.get(pid)?.to_string();
        let leaf = LeafSite {
            pid,
            path_span,
            span: node.span,
        };
        if op == "exists" {
            if let Some(v) = value {
                self.diags.push(
                    Diagnostic::new(Code::LeafValue, "operator `exists` takes no `value`")
                        .at(v.span)
                        .node(format!("{at}.value"))
                        .help("remove `value`; `exists` is true when the path resolves to a non-null value"),
                );
                return None;
            }
            return Some(Resolved {
                expr: leaf.present_and_not_null(op_span),
                may_error: false,
                tree: serde_json::json!({"path": path_text, "op": "exists"}),
            });
        }
        let Some(value) = value else {
            self.diags.push(
                Diagnostic::new(Code::LeafValue, format!("operator `{op}` needs a `value`"))
                    .at(node.span)
                    .node(at),
            );
            return None;
        };
        let value_at = format!("{at}.value");
        if let Some(bad) = nonfinite_in_mapping(value, false) {
            self.diags.push(
                Diagnostic::new(
                    Code::BadLiteral,
                    "a mapping value cannot hold `.inf` or `.nan`",
                )
                .at(bad.span)
                .node(value_at)
                .label("not a JSON number")
                .help("JSON objects hold finite numbers only; compare with a finite number"),
            );
            return None;
        }
        if let Some(d) = value.too_large("a condition value") {
            self.diags.push(d.node(value_at));
            return None;
        }
        let value_const = const_of(value);
        let constant = || IrExpr::constant(value_const.clone(), value.span);
        let binary = |op: BinaryOp| IrExprKind::Binary {
            op,
            op_span,
            lhs: Box::new(subject()),
            rhs: Box::new(constant()),
        };
        let by_table = Builtin::by_yaml(op);
        let kind = match op {
            "eq" => binary(BinaryOp::Eq),
            "ne" => binary(BinaryOp::Ne),
            "gt" => binary(BinaryOp::Gt),
            "gte" => binary(BinaryOp::Ge),
            "lt" => binary(BinaryOp::Lt),
            "lte" => binary(BinaryOp::Le),
            "in" => binary(BinaryOp::In),
            _ if by_table.is_some() => {
                let func = by_table?;
                match func.def().pattern() {
                    None => IrExprKind::Call(func, vec![subject(), constant()]),
                    Some(kind) => {
                        let Some(text) = value.as_str() else {
                            self.diags.push(
                                Diagnostic::new(
                                    Code::NonLiteralPattern,
                                    format!(
                                        "the `value` of `{op}` must be a string pattern, found {}",
                                        value.kind_name()
                                    ),
                                )
                                .at(value.span)
                                .node(value_at),
                            );
                            return None;
                        };
                        let pattern = match kind {
                            PatternKind::Regex => Regex::literal(text.to_owned(), value.span),
                            PatternKind::PathGlob => {
                                match crate::check::glob::path_regex_of(text, value.span) {
                                    Ok(re) => re,
                                    Err(e) => {
                                        let origin = yaml_doc::origin_of(self.text, value);
                                        let d = e.diagnostic(text, |a, b| origin.span(a, b));
                                        self.diags.push(d.node(value_at));
                                        return None;
                                    }
                                }
                            }
                        };
                        IrExprKind::PatternCall {
                            func,
                            args: vec![subject()],
                            pattern,
                        }
                    }
                }
            }
            "regex" => {
                let Some(pattern) = value.as_str() else {
                    self.diags.push(
                        Diagnostic::new(
                            Code::NonLiteralPattern,
                            format!(
                                "the `value` of `regex` must be a string pattern, found {}",
                                value.kind_name()
                            ),
                        )
                        .at(value.span)
                        .node(value_at),
                    );
                    return None;
                };
                self.doubled_backslashes("the `regex` value", pattern, value, &value_at);
                IrExprKind::Matches(
                    Box::new(subject()),
                    Regex::literal(pattern.to_owned(), value.span),
                )
            }
            // `runs`: the shell command string runs a program of that name
            // (or of the list): `shell.commands(p).exists(c, c.program ==
            // v)`, `... in [...]` for a list.
            "runs" => {
                let programs_ok = match &value_const {
                    Const::String(_) => true,
                    Const::List(items) => items.iter().all(|i| matches!(i, Const::String(_))),
                    _ => false,
                };
                if !programs_ok {
                    self.diags.push(
                        Diagnostic::new(
                            Code::LeafValue,
                            format!(
                                "the `value` of `runs` must be a program name or a list of them, found {}",
                                value.kind_name()
                            ),
                        )
                        .at(value.span)
                        .node(value_at)
                        .help("write `value: rm` or `value: [rm, shred]`"),
                    );
                    return None;
                }
                let var = "c".to_owned();
                let program = IrExpr::new(
                    IrExprKind::Field(
                        Box::new(IrExpr::new(
                            IrExprKind::Var {
                                // Trees have no macros of their own: the only binder.
                                depth: 0,
                                name: var.clone(),
                            },
                            op_span,
                        )),
                        "program".to_owned(),
                    ),
                    op_span,
                );
                let op = match value_const {
                    Const::List(_) => BinaryOp::In,
                    _ => BinaryOp::Eq,
                };
                let body = IrExpr::new(
                    IrExprKind::Binary {
                        op,
                        op_span,
                        lhs: Box::new(program),
                        rhs: Box::new(constant()),
                    },
                    op_span,
                );
                let commands = IrExpr::new(
                    IrExprKind::Call(Builtin::ShellCommands, vec![subject()]),
                    op_span,
                );
                IrExprKind::Macro {
                    kind: crate::ir::MacroKind::Exists,
                    range: Box::new(commands),
                    var,
                    body: Box::new(body),
                }
            }
            "glob" => {
                let Some(text) = value.as_str() else {
                    self.diags.push(
                        Diagnostic::new(
                            Code::NonLiteralPattern,
                            format!(
                                "the `value` of `glob` must be a string pattern, found {}",
                                value.kind_name()
                            ),
                        )
                        .at(value.span)
                        .node(value_at)
                        .help("write the glob as a string, e.g. `value: 'Bash(git:*)'`"),
                    );
                    return None;
                };
                match crate::check::glob::regex_of(text, value.span) {
                    Ok(re) => {
                        self.doubled_backslashes("the `glob` value", text, value, &value_at);
                        IrExprKind::Matches(Box::new(subject()), re)
                    }
                    Err(e) => {
                        let origin = yaml_doc::origin_of(self.text, value);
                        let d = e.diagnostic(text, |a, b| origin.span(a, b));
                        self.diags.push(d.node(value_at));
                        return None;
                    }
                }
            }
            _ => {
                // "matches": a JSON-Schema fragment.
                let path = self.paths.get(pid)?.clone();
                let check = self.schema(&path, value, &value_at, 0)?;
                let check = leaf.and(leaf.has(), check);
                IrExprKind::SchemaMatch {
                    path: pid,
                    schema: value.to_json(),
                    check: Box::new(check),
                }
            }
        };
        let (expr, may_error) = leaf.guarded(op, &value_const, IrExpr::new(kind, node.span));
        let written = if op == "matches" {
            value.to_json()
        } else {
            value_const.to_json()
        };
        Some(Resolved {
            expr,
            may_error,
            tree: serde_json::json!({"path": path_text, "op": op, "value": written}),
        })
    }

    /// A `path:` scalar: parsed with the expression parser, must be a path.
    fn path(&mut self, node: &Node, at: &str) -> Option<(PathId, Span)> {
        let Some(text) = node.as_str() else {
            self.diags.push(
                Diagnostic::new(
                    Code::InvalidPath,
                    format!("`path` must be a string, found {}", node.kind_name()),
                )
                .at(node.span)
                .node(at),
            );
            return None;
        };
        match crate::resolve::path::parse(text, yaml_doc::origin_of(self.text, node)) {
            Ok((path, span)) => Some((self.paths.intern(path), span)),
            Err(mut d) => {
                if d.code == Code::ExprSyntax {
                    d.code = Code::InvalidPath;
                    d.message = format!("invalid path `{text}`: {}", d.message);
                }
                self.diags.push(d.node(at));
                None
            }
        }
    }
}

/// Lists up to this long fold to the left, exactly as the parser folds
/// `a && b && c`, so that trees and `when`s of the same meaning give the same
/// IR. (A `when` cannot chain more: the parser's depth limit counts each link.)
const LEFT_FOLD_MAX: usize = 64;

/// Joins the items of an `all` (`is_all`) or `any` list, each with whether it
/// can be an error, into one condition that runs them as Python's
/// `all()`/`any()` do: left to right, stopping at the first `false` (`true`),
/// raising at the first error. Empty is `true` (`false`).
///
/// A link is CEL's `&&` (`||`) when its left side cannot be an error: then
/// CEL's commutative error absorption never shows (the right side runs only
/// when the left is `true` (`false`), and gives the result, as in Python).
/// After a left side that can be an error the link is `left ? right : false`
/// (`left ? true : right`), which passes the left side's error on where CEL's
/// `err && false` would absorb it. Behind an `&&` link, an item that is itself
/// a two-operand `&&` (a guarded leaf) is spliced into the chain (`&&` is
/// associative), so that a list of leaves is one flat chain of context leaves
/// for the runtime's fast paths.
///
/// Up to [`LEFT_FOLD_MAX`] items fold left; longer lists split in halves
/// (not spliced), so a 100,000-item `any:` is a tree of depth about 80, not
/// 100,000 (every later pass recurses over the IR). Halves joined the same
/// way run in the same order, so the shape never changes a result.
pub fn join(items: Vec<(IrExpr, bool)>, is_all: bool, empty_span: Span) -> (IrExpr, bool) {
    if items.len() > LEFT_FOLD_MAX {
        let mut left = items;
        let right = left.split_off(left.len() / 2);
        let left = join(left, is_all, empty_span);
        let right = join(right, is_all, empty_span);
        return link(left, right, is_all, false);
    }
    let mut iter = items.into_iter();
    match iter.next() {
        None => (IrExpr::constant(Const::Bool(is_all), empty_span), false),
        Some(first) => iter.fold(first, |acc, item| link(acc, item, is_all, true)),
    }
}

/// One link of [`join`].
fn link(a: (IrExpr, bool), b: (IrExpr, bool), is_all: bool, splice: bool) -> (IrExpr, bool) {
    let ((a, a_err), (b, b_err)) = (a, b);
    let may_error = a_err || b_err;
    let join = |x: IrExpr, y: IrExpr| {
        let span = x.span.to(y.span);
        let kind = if is_all {
            IrExprKind::And(Box::new(x), Box::new(y))
        } else {
            IrExprKind::Or(Box::new(x), Box::new(y))
        };
        IrExpr::new(kind, span)
    };
    if a_err {
        let span = a.span.to(b.span);
        let (then, otherwise) = if is_all {
            (b, IrExpr::constant(Const::Bool(false), span))
        } else {
            (IrExpr::constant(Const::Bool(true), span), b)
        };
        let kind = IrExprKind::Cond(Box::new(a), Box::new(then), Box::new(otherwise));
        return (IrExpr::new(kind, span), may_error);
    }
    let is_chain = |e: &IrExpr| matches!(e.kind, IrExprKind::And(..) | IrExprKind::Or(..));
    let same_operator = matches!(b.kind, IrExprKind::And(..)) == is_all;
    let expr = match b.kind {
        IrExprKind::And(x, y) | IrExprKind::Or(x, y)
            if splice && same_operator && !is_chain(&x) && !is_chain(&y) =>
        {
            join(join(a, *x), *y)
        }
        kind => join(a, IrExpr::new(kind, b.span)),
    };
    (expr, may_error)
}

/// A non-finite number inside a mapping (at any depth), which a constant
/// object cannot hold: constant objects are JSON.
fn nonfinite_in_mapping(node: &Node, in_mapping: bool) -> Option<&Node> {
    match &node.kind {
        NodeKind::Float(f) if in_mapping && !f.is_finite() => Some(node),
        NodeKind::Seq(items) => items
            .iter()
            .find_map(|n| nonfinite_in_mapping(n, in_mapping)),
        NodeKind::Map(entries) => entries
            .iter()
            .find_map(|(_, n)| nonfinite_in_mapping(n, true)),
        _ => None,
    }
}

/// A YAML value as a constant.
fn const_of(node: &Node) -> Const {
    match &node.kind {
        NodeKind::Null => Const::Null,
        NodeKind::Bool(b) => Const::Bool(*b),
        NodeKind::Int(i) => Const::Int(*i),
        NodeKind::Float(f) => Const::Double(*f),
        NodeKind::Str(s) | NodeKind::Text(s) => Const::String(s.clone()),
        NodeKind::Seq(items) => Const::List(items.iter().map(const_of).collect()),
        NodeKind::Map(entries) => Const::Object(
            entries
                .iter()
                .map(|(k, v)| (k.name.clone(), const_of(v)))
                .collect(),
        ),
    }
}

mod leaf;
mod schema;

use leaf::LeafSite;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_yaml_spelling_of_the_function_table_is_an_operator() {
        for f in Builtin::ALL {
            if let Some(op) = f.def().yaml {
                assert!(OPERATORS.contains(&op), "`{op}` is not in OPERATORS");
            }
        }
    }

    #[test]
    fn every_spelling_means_an_operator_and_is_none() {
        for (spelling, meant) in OPERATOR_SPELLINGS {
            assert!(OPERATORS.contains(meant), "`{spelling}` means `{meant}`");
            assert!(!OPERATORS.contains(spelling), "`{spelling}` is an operator");
        }
    }

    #[test]
    fn unknown_operators_get_the_meant_one_or_the_closest() {
        assert_eq!(
            operator_help("equals").as_deref(),
            Some("did you mean `eq`?")
        );
        assert_eq!(operator_help(">=").as_deref(), Some("did you mean `gte`?"));
        assert_eq!(
            operator_help("contans").as_deref(),
            Some("did you mean `contains`?")
        );
        assert!(operator_help("frobnicate").is_some_and(|h| h.starts_with("expected one of")));
    }
}
