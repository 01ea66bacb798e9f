//! Resolution: YAML condition trees → IR.
//!
//! A leaf means exactly the expression of the same meaning (`docs/src/semantics.md#condition-trees`):
//! `{path: p, op: gt, value: 5}` becomes the IR of `p > 5`, so a tree and a
//! `when` of the same meaning compile to the same IR. `all`/`any` fold
//! left-associatively like `&&`/`||` chains; `exists` is `has(p) && p != null`;
//! `glob` is `p.glob(v)` (translated into a regex, [`crate::check::glob`]);
//! `matches` compiles a JSON-Schema fragment into a predicate.
//!
//! Every IR node made from a YAML node is recorded with that node's path, so
//! that later stages' diagnostics can name it (`hooks[2].condition.all[0].op`).

use crate::check::ty::Kinds;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::{Node, NodeKind};
use crate::frontend::yaml_doc;
use crate::ir::{BinaryOp, Const, Func, IrExpr, IrExprKind, Regex, UnaryOp};
use crate::span::Span;
use crate::suggest;
use hookc_runtime::bytecode::path::{Path, PathId, PathTable, Segment};

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

impl TreeResolver<'_> {
    /// Converts a condition tree at YAML node path `at`.
    pub fn resolve(&mut self, node: &Node, at: &str) -> Option<IrExpr> {
        self.node(node, at, 0)
    }

    fn node(&mut self, node: &Node, at: &str, depth: usize) -> Option<IrExpr> {
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
        let expr = if let Some(items) = node.get("all") {
            self.fold(items, &format!("{at}.all"), depth, true)?
        } else if let Some(items) = node.get("any") {
            self.fold(items, &format!("{at}.any"), depth, false)?
        } else if let Some(inner) = node.get("not") {
            let inner = self.node(inner, &format!("{at}.not"), depth + 1)?;
            IrExpr::new(IrExprKind::Unary(UnaryOp::Not, Box::new(inner)), node.span)
        } else {
            self.leaf(node, at)?
        };
        self.node_paths.push((expr.span, at.to_owned()));
        Some(expr)
    }

    /// `all`/`any`: see [`chain`].
    fn fold(&mut self, items: &Node, at: &str, depth: usize, is_all: bool) -> Option<IrExpr> {
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
        let converted: Vec<Option<IrExpr>> = seq
            .iter()
            .enumerate()
            .map(|(i, c)| self.node(c, &format!("{at}[{i}]"), depth + 1))
            .collect();
        let converted: Vec<IrExpr> = converted.into_iter().collect::<Option<_>>()?;
        Some(chain(converted, is_all, items.span))
    }

    fn leaf(&mut self, node: &Node, at: &str) -> Option<IrExpr> {
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
            // `has(p) && p != null`
            let has = IrExpr::new(IrExprKind::HasPath(pid), path_span);
            let ne = IrExpr::new(
                IrExprKind::Binary {
                    op: BinaryOp::Ne,
                    op_span,
                    lhs: Box::new(subject()),
                    rhs: Box::new(IrExpr::constant(Const::Null, op_span)),
                },
                node.span,
            );
            return Some(IrExpr::new(
                IrExprKind::And(Box::new(has), Box::new(ne)),
                node.span,
            ));
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
        let constant = || IrExpr::constant(const_of(value), value.span);
        let binary = |op: BinaryOp| IrExprKind::Binary {
            op,
            op_span,
            lhs: Box::new(subject()),
            rhs: Box::new(constant()),
        };
        let kind = match op {
            "eq" => binary(BinaryOp::Eq),
            "ne" => binary(BinaryOp::Ne),
            "gt" => binary(BinaryOp::Gt),
            "gte" => binary(BinaryOp::Ge),
            "lt" => binary(BinaryOp::Lt),
            "lte" => binary(BinaryOp::Le),
            "in" => binary(BinaryOp::In),
            "contains" => IrExprKind::Call(Func::Contains, vec![subject(), constant()]),
            "starts_with" => IrExprKind::Call(Func::StartsWith, vec![subject(), constant()]),
            "ends_with" => IrExprKind::Call(Func::EndsWith, vec![subject(), constant()]),
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
                IrExprKind::Matches(
                    Box::new(subject()),
                    Regex::literal(pattern.to_owned(), value.span),
                )
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
                    Ok(re) => IrExprKind::Matches(Box::new(subject()), re),
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
                let has = IrExpr::new(IrExprKind::HasPath(pid), path_span);
                let check = IrExpr::new(IrExprKind::And(Box::new(has), Box::new(check)), node.span);
                IrExprKind::SchemaMatch {
                    path: pid,
                    schema: value.to_json(),
                    check: Box::new(check),
                }
            }
        };
        Some(IrExpr::new(kind, node.span))
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

    /// Compiles a JSON-Schema fragment validating the value at `path` into a
    /// predicate. Each keyword applies only to values of its type, as in JSON
    /// Schema (`minimum` says nothing about a string).
    fn schema(&mut self, path: &Path, node: &Node, at: &str, depth: usize) -> Option<IrExpr> {
        let span = node.span;
        if depth > hookc_runtime::limits::MAX_DOC_DEPTH {
            self.diags.push(
                Diagnostic::new(Code::TooDeep, "`matches` schema nested too deeply")
                    .at(span)
                    .node(at),
            );
            return None;
        }
        let Some(entries) = node.as_map() else {
            self.diags.push(
                Diagnostic::new(
                    Code::MatchesSchema,
                    format!(
                        "a `matches` value must be a schema (a mapping), found {}",
                        node.kind_name()
                    ),
                )
                .at(span)
                .node(at),
            );
            return None;
        };
        let pid = self.paths.intern(path.clone());
        let subject = || IrExpr::new(IrExprKind::Path(pid), span);
        let type_is = |k: Kinds| IrExpr::new(IrExprKind::TypeIs(Box::new(subject()), k), span);
        // `!is(k) || check`: the keyword holds for values of other kinds.
        let guarded = |k: Kinds, check: IrExpr| {
            let not = IrExpr::new(IrExprKind::Unary(UnaryOp::Not, Box::new(type_is(k))), span);
            IrExpr::new(IrExprKind::Or(Box::new(not), Box::new(check)), span)
        };
        let cmp = |op: BinaryOp, lhs: IrExpr, rhs: IrExpr| {
            IrExpr::new(
                IrExprKind::Binary {
                    op,
                    op_span: span,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            )
        };
        let mut parts: Vec<IrExpr> = Vec::new();
        let mut ok = true;
        for (key, value) in entries {
            let key_at = format!("{at}.{}", key.name);
            let bad = |this: &mut Self, what: &str| {
                this.diags.push(
                    Diagnostic::new(
                        Code::MatchesSchema,
                        format!("`{}` {what}, found {}", key.name, value.kind_name()),
                    )
                    .at(value.span)
                    .node(key_at.clone()),
                );
            };
            let number = match value.kind {
                NodeKind::Int(i) => Some(Const::Int(i)),
                NodeKind::Float(f) => Some(Const::Double(f)),
                _ => None,
            };
            let count = match value.kind {
                NodeKind::Int(i) if i >= 0 => Some(i),
                _ => None,
            };
            match key.name.as_str() {
                "type" => {
                    let names: Vec<&Node> = match &value.kind {
                        NodeKind::Seq(items) => items.iter().collect(),
                        _ => vec![value],
                    };
                    let mut kinds = Kinds::NONE;
                    for n in names {
                        match n.as_str().and_then(Kinds::from_schema_name) {
                            Some(k) => kinds = kinds.or(k),
                            None => {
                                self.diags.push(
                                    Diagnostic::new(Code::MatchesSchema, "`type` must name JSON Schema types")
                                        .at(n.span)
                                        .node(key_at.clone())
                                        .help("use `object`, `string`, `number`, `integer`, `boolean`, `array` or `null`"),
                                );
                                ok = false;
                            }
                        }
                    }
                    parts.push(super::kind_test::schema_type(&subject, kinds, span));
                }
                "const" => parts.push(cmp(
                    BinaryOp::Eq,
                    subject(),
                    IrExpr::constant(const_of(value), value.span),
                )),
                "enum" => {
                    if value.as_seq().is_none() {
                        bad(self, "must be a list");
                        ok = false;
                        continue;
                    }
                    parts.push(cmp(
                        BinaryOp::In,
                        subject(),
                        IrExpr::constant(const_of(value), value.span),
                    ));
                }
                "required" => {
                    let Some(names) = value
                        .as_seq()
                        .and_then(|s| s.iter().map(Node::as_str).collect::<Option<Vec<_>>>())
                    else {
                        bad(self, "must be a list of property names");
                        ok = false;
                        continue;
                    };
                    for name in names {
                        let child = self
                            .paths
                            .intern(path.child(Segment::Field(name.to_owned())));
                        parts.push(guarded(
                            Kinds::OBJECT,
                            IrExpr::new(IrExprKind::HasPath(child), value.span),
                        ));
                    }
                }
                "properties" => {
                    let Some(props) = value.as_map() else {
                        bad(self, "must be a mapping of schemas");
                        ok = false;
                        continue;
                    };
                    for (pk, pv) in props {
                        let child = path.child(Segment::Field(pk.name.clone()));
                        let Some(check) =
                            self.schema(&child, pv, &format!("{key_at}.{}", pk.name), depth + 1)
                        else {
                            ok = false;
                            continue;
                        };
                        let cid = self.paths.intern(child);
                        let absent = IrExpr::new(
                            IrExprKind::Unary(
                                UnaryOp::Not,
                                Box::new(IrExpr::new(IrExprKind::HasPath(cid), pv.span)),
                            ),
                            pv.span,
                        );
                        let check =
                            IrExpr::new(IrExprKind::Or(Box::new(absent), Box::new(check)), pv.span);
                        parts.push(guarded(Kinds::OBJECT, check));
                    }
                }
                "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
                    let Some(n) = number else {
                        bad(self, "must be a number");
                        ok = false;
                        continue;
                    };
                    let op = match key.name.as_str() {
                        "minimum" => BinaryOp::Ge,
                        "maximum" => BinaryOp::Le,
                        "exclusiveMinimum" => BinaryOp::Gt,
                        _ => BinaryOp::Lt,
                    };
                    parts.push(guarded(
                        Kinds::NUMBER,
                        cmp(op, subject(), IrExpr::constant(n, value.span)),
                    ));
                }
                "minLength" | "maxLength" => {
                    let Some(n) = count else {
                        bad(self, "must be a non-negative integer");
                        ok = false;
                        continue;
                    };
                    let op = if key.name == "minLength" {
                        BinaryOp::Ge
                    } else {
                        BinaryOp::Le
                    };
                    let size = IrExpr::new(IrExprKind::Call(Func::Size, vec![subject()]), span);
                    parts.push(guarded(
                        Kinds::STRING,
                        cmp(op, size, IrExpr::constant(Const::Int(n), value.span)),
                    ));
                }
                "pattern" => {
                    let Some(p) = value.as_str() else {
                        bad(self, "must be a string pattern");
                        ok = false;
                        continue;
                    };
                    let m = IrExpr::new(
                        IrExprKind::Matches(
                            Box::new(subject()),
                            Regex::literal(p.to_owned(), value.span),
                        ),
                        span,
                    );
                    parts.push(guarded(Kinds::STRING, m));
                }
                other => {
                    self.diags.push(
                        Diagnostic::new(
                            Code::MatchesSchema,
                            format!("schema keyword `{other}` is not supported in `matches`"),
                        )
                        .at(key.span)
                        .node(key_at.clone())
                        .maybe_help(suggest::help_for(other, SCHEMA_KEYWORDS.iter().copied())),
                    );
                    ok = false;
                }
            }
        }
        if !ok {
            return None;
        }
        Some(chain(parts, true, span))
    }
}

/// Lists up to this long fold to the left, exactly as the parser folds
/// `a && b && c`, so that trees and `when`s of the same meaning give the same
/// IR. (A `when` cannot chain more: the parser's depth limit counts each link.)
const LEFT_FOLD_MAX: usize = 64;

/// Joins conditions with `&&` (`is_and`) or `||`: empty is `true`/`false`; up
/// to [`LEFT_FOLD_MAX`] items fold left; longer lists split in halves, so a
/// 100,000-item `any:` is a tree of depth about 80, not 100,000 (every later
/// pass recurses over the IR). `&&` and `||` are associative under CEL's
/// commutative error absorption, so the shape never changes a result.
fn chain(items: Vec<IrExpr>, is_and: bool, empty_span: Span) -> IrExpr {
    let join = |a: IrExpr, b: IrExpr| {
        let span = a.span.to(b.span);
        let kind = if is_and {
            IrExprKind::And(Box::new(a), Box::new(b))
        } else {
            IrExprKind::Or(Box::new(a), Box::new(b))
        };
        IrExpr::new(kind, span)
    };
    if items.len() > LEFT_FOLD_MAX {
        let mut left = items;
        let right = left.split_off(left.len() / 2);
        return join(
            chain(left, is_and, empty_span),
            chain(right, is_and, empty_span),
        );
    }
    let mut iter = items.into_iter();
    match iter.next() {
        None => IrExpr::constant(Const::Bool(is_and), empty_span),
        Some(first) => iter.fold(first, join),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
