//! The IR's operators as the instructions' (`cmp_op`, `arith_op`,
//! `macro_op`), the shapes of `&&`/`||` chains, and what lowering and
//! folding both ask of an expression.

use super::*;

/// The operands of a logical node and whether it is `&&`.
pub(super) fn logic_parts(e: &IrExpr) -> Option<(&IrExpr, &IrExpr, bool)> {
    match &e.kind {
        IrExprKind::And(a, b) => Some((a, b, true)),
        IrExprKind::Or(a, b) => Some((a, b, false)),
        IrExprKind::Binary {
            op: op @ (BinaryOp::And | BinaryOp::Or),
            lhs,
            rhs,
            ..
        } => Some((lhs, rhs, *op == BinaryOp::And)),
        _ => None,
    }
}

/// The left spine of a chain of one logical operator: its leftmost operand
/// and the right operands from the top down, with each node's span.
pub(super) fn left_spine(e: &IrExpr, and: bool) -> (&IrExpr, Vec<(&IrExpr, Span)>) {
    let mut rights = Vec::new();
    let mut cur = e;
    while let Some((a, b, k)) = logic_parts(cur) {
        if k != and {
            break;
        }
        rights.push((b, cur.span));
        cur = a;
    }
    (cur, rights)
}

/// Drops an expression without recursing along `&&`/`||` left spines (the
/// derived drop of a `Box` chain recurses once per link).
pub(super) fn drop_chains(e: IrExpr) {
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        match e.kind {
            IrExprKind::And(a, b) | IrExprKind::Or(a, b) => todo.extend([*a, *b]),
            _ => {}
        }
    }
}

pub(super) fn macro_op(kind: MacroKind) -> MacroOp {
    match kind {
        MacroKind::Exists => MacroOp::Exists,
        MacroKind::All => MacroOp::All,
        MacroKind::ExistsOne => MacroOp::ExistsOne,
        MacroKind::Map => MacroOp::Map,
        MacroKind::Filter => MacroOp::Filter,
    }
}

pub(super) fn cmp_op(op: BinaryOp) -> Option<CmpOp> {
    Some(match op {
        BinaryOp::Eq => CmpOp::Eq,
        BinaryOp::Ne => CmpOp::Ne,
        BinaryOp::Lt => CmpOp::Lt,
        BinaryOp::Le => CmpOp::Le,
        BinaryOp::Gt => CmpOp::Gt,
        BinaryOp::Ge => CmpOp::Ge,
        _ => return None,
    })
}

pub(super) fn arith_op(op: BinaryOp) -> Option<Op> {
    Some(match op {
        BinaryOp::Add => Op::Add,
        BinaryOp::Sub => Op::Sub,
        BinaryOp::Mul => Op::Mul,
        BinaryOp::Div => Op::Div,
        BinaryOp::Rem => Op::Rem,
        _ => return None,
    })
}

/// `a OP b` ≡ `b mirror(OP) a`.
pub(super) fn mirror(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Eq => CmpOp::Eq,
        CmpOp::Ne => CmpOp::Ne,
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
    }
}

/// Whether a constant is exactly its JSON (every double finite).
pub(super) fn exact(c: &Const) -> bool {
    match c {
        Const::Double(d) => d.is_finite(),
        Const::List(items) => items.iter().all(exact),
        Const::Object(entries) => entries.iter().all(|(_, v)| exact(v)),
        _ => true,
    }
}
