//! Lowering a condition or a template expression to code: each IR
//! expression to its instructions, `&&`/`||` chains to short-circuit jumps,
//! comparisons and arithmetic to their instructions, constants to the
//! constant table.

use super::parts::*;
use super::*;

impl Lowerer<'_> {
    /// Emits code leaving `e`'s value on the stack (`depth + 1`).
    /// Lowers `e`; when recording, an operand of the logical operators that
    /// is not one itself is a sub-condition: its last instruction is marked.
    pub(super) fn expr(&mut self, e: &IrExpr) {
        let logical = matches!(
            e.kind,
            IrExprKind::And(..)
                | IrExprKind::Or(..)
                | IrExprKind::Cond(..)
                | IrExprKind::Unary(UnaryOp::Not, _)
                | IrExprKind::Binary {
                    op: BinaryOp::And | BinaryOp::Or,
                    ..
                }
        );
        if !self.record || self.in_leaf > 0 || logical {
            return self.expr_code(e);
        }
        self.in_leaf += 1;
        self.expr_code(e);
        self.in_leaf -= 1;
        let text = e
            .describe(self.table)
            .unwrap_or_else(|| "<condition>".to_owned());
        if let (Some(last), Some((_, marks))) = (self.here().checked_sub(1), self.debug.last_mut())
        {
            marks.push((last, e.span, text));
        }
    }

    pub(super) fn expr_code(&mut self, e: &IrExpr) {
        use IrExprKind as K;
        if let Some(conjunct) = self.short_conjunct(e) {
            return conjunct.write(self);
        }
        match &e.kind {
            K::Const(c) => self.constant(c),
            K::List(items) => {
                for item in items {
                    self.expr(item);
                }
                self.emit(Op::MakeList(idx(items.len())));
            }
            K::Path(id) => match self.row_table(*id) {
                Some(t) => self.row_path(t, *id),
                None => {
                    let p = self.path_id(*id);
                    self.emit(Op::Path(p));
                }
            },
            K::Var { depth, .. } => {
                // IR depth counts binders from the outermost; `Op::Var` from
                // the innermost. A checked policy has `depth < binders`; an
                // unbound one saturates to an index the verifier rejects.
                let d = self
                    .binders
                    .checked_sub(self.var_base.saturating_add(*depth).saturating_add(1))
                    .and_then(|d| u16::try_from(d).ok())
                    .unwrap_or(u16::MAX);
                self.emit(Op::Var(d));
            }
            // Its expression, lowered here: the same code as if it were
            // written in its place (`docs/src/semantics.md#local-names`);
            // a kept name's code runs once, and later uses read its slot.
            K::Local { body, .. } => {
                let slot = self.kept.slot(body);
                let load = slot.map(|slot| {
                    self.emit(Op::LocalLoad {
                        slot,
                        end: JumpTarget::new(0),
                    })
                });
                let outer = std::mem::replace(&mut self.var_base, self.binders);
                self.expr(body);
                self.var_base = outer;
                if let (Some(slot), Some(load)) = (slot, load) {
                    self.emit(Op::LocalStore(slot));
                    let end = self.here();
                    self.patch(load, end);
                }
            }
            K::Field(base, name) => {
                self.expr(base);
                let s = self.string(name);
                self.emit(Op::Field(s));
            }
            K::Index(base, index) => {
                self.expr(base);
                self.expr(index);
                self.emit(Op::Index);
            }
            K::HasPath(id) => match self.row_table(*id) {
                // Resolves: a value of any kind, not an error.
                Some(t) => {
                    self.row_path(t, *id);
                    self.emit(Op::TypeIs(hookc_runtime::bytecode::Kinds::ANY.bits()));
                }
                None => {
                    let p = self.path_id(*id);
                    Conjunct::Leaf(Leaf::Has { path: p }).write(self);
                }
            },
            K::HasField(base, name) => {
                self.expr(base);
                let s = self.string(name);
                self.emit(Op::HasField(s));
            }
            K::Unary(op, operand) => {
                self.expr(operand);
                self.emit(match op {
                    UnaryOp::Not => Op::Not,
                    UnaryOp::Neg => Op::Neg,
                });
            }
            K::And(..)
            | K::Or(..)
            | K::Binary {
                op: BinaryOp::And | BinaryOp::Or,
                ..
            } => self.logic_chain(e),
            K::Binary { op, lhs, rhs, .. } => self.binary(*op, lhs, rhs),
            K::Cond(c, a, b) => {
                self.expr(c);
                let branch = self.emit(Op::Branch {
                    otherwise: JumpTarget::default(),
                    end: JumpTarget::default(),
                });
                let base = self.depth;
                self.expr(a);
                let jump = self.emit(Op::Jump(JumpTarget::default()));
                let otherwise = self.here();
                // The else code starts from the depth the Branch left.
                self.depth = base;
                self.expr(b);
                let end = self.here();
                if let Some(Op::Branch { otherwise: o, .. }) =
                    self.prog.code.get_mut(branch as usize)
                {
                    *o = JumpTarget::new(otherwise);
                }
                self.patch(branch, end);
                self.patch(jump, end);
            }
            K::Call(f, args) => {
                for a in args {
                    self.expr(a);
                }
                self.emit(match f.def().lowering {
                    Lowering::Instruction(op) => op,
                    // A regex test has a pattern, so it is a `PatternCall`
                    // (below); a call without one is the generic call.
                    Lowering::Call | Lowering::RegexTest => Op::Call(f.func_id()),
                });
            }
            K::PatternCall {
                func,
                args,
                pattern,
            } => match (func.def().lowering, args.as_slice()) {
                // `path.match(p, glob)` is `p` tested against the glob's
                // regex (the function table says so): no call.
                (Lowering::RegexTest, [recv]) => self.regex_test(recv, &pattern.pattern),
                _ => {
                    for a in args {
                        self.expr(a);
                    }
                    let regex = self.regex(&pattern.pattern);
                    self.emit(Op::CallRegex {
                        func: func.func_id(),
                        regex,
                    });
                }
            },
            K::Matches(recv, re) => self.regex_test(recv, &re.pattern),
            K::Macro {
                kind, range, body, ..
            } => {
                self.expr(range);
                let start = self.emit(Op::MacroStart {
                    kind: macro_op(*kind),
                    end: JumpTarget::default(),
                });
                self.binders += 1;
                self.expr(body);
                self.binders -= 1;
                self.emit(Op::MacroNext);
                let end = self.here();
                self.patch(start, end);
            }
            K::TypeIs(operand, kinds) => {
                self.expr(operand);
                self.emit(Op::TypeIs(kinds.bits()));
            }
            K::SchemaMatch { check, .. } => self.expr(check),
        }
    }

    /// A chain `a && b && c` (or of `||`): the same code as lowering each
    /// node in turn, but walking the left spine in a loop. YAML `all`/`any`
    /// lists become left-nested chains as long as the list, which no depth
    /// limit bounds, so this must not recurse per item.
    pub(super) fn logic_chain(&mut self, e: &IrExpr) {
        let Some((_, _, and)) = logic_parts(e) else {
            return self.expr(e);
        };
        let (leaf, rights) = left_spine(e, and);
        self.expr(leaf);
        for (b, _) in rights.into_iter().rev() {
            let link = Link::open(self, and);
            self.expr(b);
            link.close(self);
        }
    }

    pub(super) fn binary(&mut self, op: BinaryOp, lhs: &IrExpr, rhs: &IrExpr) {
        use IrExprKind as K;
        if let Some(c) = cmp_op(op) {
            // Superinstruction: `path OP constant`, or `constant OP path`
            // mirrored (`5 < p` is `p > 5`: equality is symmetric, ordering
            // flips, errors and mismatched kinds are the same either way).
            let fused = match (&lhs.kind, &rhs.kind) {
                (K::Path(_), K::Const(k)) if exact(k) => Some((lhs, k, c)),
                (K::Const(k), K::Path(_)) if exact(k) => Some((rhs, k, mirror(c))),
                _ => None,
            };
            let fused = fused.and_then(|(p, k, c)| Some((self.context_path(p)?, k, c)));
            if let Some((path, k, c)) = fused {
                let konst = self.json(k.to_json());
                Conjunct::Leaf(Leaf::Cmp { path, op: c, konst }).write(self);
            } else {
                self.expr(lhs);
                self.expr(rhs);
                self.emit(Op::Cmp(c));
            }
            return;
        }
        let op = match op {
            // `expr` sends these to `logic_chain`; both sides known, the join
            // alone is the same value.
            BinaryOp::And => Op::AndJoin,
            BinaryOp::Or => Op::OrJoin,
            BinaryOp::In => {
                if let K::Const(list @ Const::List(items)) = &rhs.kind {
                    if items.len() >= SET_THRESHOLD && exact(list) {
                        let set = self.set(list);
                        if let Some(path) = self.context_path(lhs) {
                            Conjunct::Leaf(Leaf::InSet { path, set }).write(self);
                        } else {
                            self.expr(lhs);
                            self.emit(Op::InSet(set));
                        }
                        return;
                    }
                }
                Op::In
            }
            other => arith_op(other).unwrap_or(Op::In),
        };
        self.expr(lhs);
        self.expr(rhs);
        self.emit(op);
    }

    /// Pushes a constant.
    pub(super) fn constant(&mut self, c: &Const) {
        match c {
            Const::Null => {
                self.emit(Op::Null);
            }
            Const::Bool(true) => {
                self.emit(Op::True);
            }
            Const::Bool(false) => {
                self.emit(Op::False);
            }
            // JSON (and so the pool) has no NaN or infinities: compute them
            // as CEL writes them, `0.0 / 0.0`, `1.0 / 0.0`, `-1.0 / 0.0`.
            Const::Double(d) if !d.is_finite() => {
                let num = if d.is_nan() {
                    0.0
                } else if *d > 0.0 {
                    1.0
                } else {
                    -1.0
                };
                let n = self.json(Const::Double(num).to_json());
                let z = self.json(Const::Double(0.0).to_json());
                self.emit(Op::Const(n));
                self.emit(Op::Const(z));
                self.emit(Op::Div);
            }
            Const::List(items) if !exact(c) => {
                for item in items {
                    self.constant(item);
                }
                self.emit(Op::MakeList(idx(items.len())));
            }
            // An object holding a non-finite double cannot be a runtime value
            // at all (`Val::Object` borrows a JSON map), so it takes
            // `Const::to_json`'s form (`null` in its place), as any evaluator
            // over `Val` must. Everything else is exact.
            _ => {
                let i = self.json(c.to_json());
                self.emit(Op::Const(i));
            }
        }
    }
}
