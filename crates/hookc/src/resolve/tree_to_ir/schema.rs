//! A `matches` leaf's JSON Schema (`docs/src/semantics.md#condition-trees`)
//! as a condition on the path: each keyword a test, the kind test of
//! `type` from `schema_kind.rs`.

use super::*;

impl TreeResolver<'_> {
    /// Compiles a JSON-Schema fragment validating the value at `path` into a
    /// predicate. Each keyword applies only to values of its type, as in JSON
    /// Schema (`minimum` says nothing about a string).
    pub(super) fn schema(
        &mut self,
        path: &Path,
        node: &Node,
        at: &str,
        depth: usize,
    ) -> Option<IrExpr> {
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
                    parts.push(crate::resolve::schema_kind::schema_type(
                        &subject, kinds, span,
                    ));
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
                    let size = IrExpr::new(IrExprKind::Call(Builtin::Size, vec![subject()]), span);
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
                    self.doubled_backslashes(
                        "the `pattern` of a `matches` schema",
                        p,
                        value,
                        &key_at,
                    );
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
        // Every part is `false` or `true`, never an error (each keyword
        // tests its kind first), so the parts join with plain `&&`.
        Some(join(parts.into_iter().map(|p| (p, false)).collect(), true, span).0)
    }
}
