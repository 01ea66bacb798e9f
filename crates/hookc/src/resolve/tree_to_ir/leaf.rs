//! Where a leaf's operator is applied: the path and its spans, and how an
//! operator reads an absent or `null` path as seed 000's evaluator does.

use super::*;

/// A leaf's path, where it is written and the leaf's span: what the guards
/// of [`LeafSite::guarded`] are built from.
pub(super) struct LeafSite {
    pub(super) pid: PathId,
    pub(super) path_span: Span,
    pub(super) span: Span,
}

impl LeafSite {
    pub(super) fn path(&self) -> IrExpr {
        IrExpr::new(IrExprKind::Path(self.pid), self.path_span)
    }

    pub(super) fn has(&self) -> IrExpr {
        IrExpr::new(IrExprKind::HasPath(self.pid), self.path_span)
    }

    pub(super) fn and(&self, a: IrExpr, b: IrExpr) -> IrExpr {
        IrExpr::new(IrExprKind::And(Box::new(a), Box::new(b)), self.span)
    }

    /// `!has(p) || core`: `true` where the path is absent, `core` elsewhere.
    pub(super) fn absent_or(&self, core: IrExpr) -> IrExpr {
        let not_has = IrExpr::new(
            IrExprKind::Unary(UnaryOp::Not, Box::new(self.has())),
            self.path_span,
        );
        IrExpr::new(IrExprKind::Or(Box::new(not_has), Box::new(core)), self.span)
    }

    /// `has(p) && p != null`: `exists`, and `ne null` (Python's `a != None`
    /// is `a is not None` on JSON values).
    pub(super) fn present_and_not_null(&self, op_span: Span) -> IrExpr {
        let ne = IrExpr::new(
            IrExprKind::Binary {
                op: BinaryOp::Ne,
                op_span,
                lhs: Box::new(self.path()),
                rhs: Box::new(IrExpr::constant(Const::Null, op_span)),
            },
            self.span,
        );
        self.and(self.has(), ne)
    }

    /// The leaf `{path, op, value}` whose comparison, as the `when` language
    /// reads it, is `core`: guarded so that it means what seed 000's Python
    /// means (`docs/src/semantics.md#condition-trees`), and whether it can be
    /// an error. `core` is an error exactly where the path is absent, or (for
    /// the string operators) not a string; the guards turn those into the
    /// seed's values:
    ///
    /// - `core && has(p)` (`eq`, `in` when the value is not `null` or holds
    ///   no `null`): `false` where the path is absent, since CEL's `&&` is
    ///   `false` when either side is, error or not. The comparison comes
    ///   first so that a chain of such leaves is still led by the fused
    ///   `path == constant` that the equality dispatch and the hook index key
    ///   on (`bytecode/shape.rs`).
    /// - `!has(p) || core` (`eq null`, `ne`, `in` a list holding `null`):
    ///   `true` where the path is absent (Python compares `None`).
    /// - `core && p is string` (`contains`, `starts_with`, `ends_with`,
    ///   `regex`, `glob`): `false` on every non-string, absent included (the
    ///   seed's `str()` coercion is not reproduced).
    /// - ordering comparisons are left as they are: an error where the path
    ///   is absent or the kinds do not order, where Python raises.
    pub(super) fn guarded(&self, op: &str, value: &Const, core: IrExpr) -> (IrExpr, bool) {
        let holds_null = |c: &Const| match c {
            Const::List(items) => items.contains(&Const::Null),
            _ => false,
        };
        let present_and = |core| (self.and(core, self.has()), false);
        match op {
            "eq" if *value == Const::Null => (self.absent_or(core), false),
            "eq" => present_and(core),
            "ne" if *value == Const::Null => (self.and(self.has(), core), false),
            "ne" => (self.absent_or(core), false),
            "in" if holds_null(value) => (self.absent_or(core), false),
            "in" => present_and(core),
            op if op == "regex"
                || op == "glob"
                || op == "runs"
                || Builtin::by_yaml(op).is_some() =>
            {
                let is_string = IrExpr::new(
                    IrExprKind::TypeIs(Box::new(self.path()), Kinds::STRING),
                    self.path_span,
                );
                (self.and(core, is_string), false)
            }
            // `matches` checks `has(p)` itself and never fails.
            "matches" => (core, false),
            _ => (core, true),
        }
    }
}
