//! The kind test of a YAML `matches` schema's `type` keyword
//! (`docs/src/semantics.md#condition-trees`), where `integer` means what
//! JSON Schema means: a number with no fractional part, so an integral
//! double (`2.0`) is an integer as well as an int (`2`).
//!
//! The IR's kind test ([`IrExprKind::TypeIs`]) knows the run-time kinds
//! only, where `2.0` is a double. Rather than a new instruction (and
//! artifact format), an integral double is recognised with the existing
//! double arithmetic, which is exact IEEE 754: for a finite double `d`
//! with `|d| < 2^52`, adding and subtracting `2^52` rounds `d` to an
//! integer (the doubles between `2^52` and `2^53` are exactly the
//! integers), so `d + 2^52 - 2^52 == d` (`d - 2^52 + 2^52 == d` below
//! zero) holds exactly when `d` is integral; every double of magnitude
//! `2^52` or more is integral. NaN and the infinities fail `d * 0.0 ==
//! 0.0`. None of these operations can fail on a double.

use crate::check::ty::Kinds;
use crate::ir::{BinaryOp, Const, IrExpr, IrExprKind};
use crate::span::Span;

/// `2^52`: from here on every double is an integer.
const TWO_POW_52: f64 = 4_503_599_627_370_496.0;

/// Whether the value of `subject` has one of the kinds `type` names,
/// `integer` also admitting integral doubles. `subject` builds the tested
/// expression (a path read, cheap to repeat).
pub(crate) fn schema_type(subject: &dyn Fn() -> IrExpr, kinds: Kinds, span: Span) -> IrExpr {
    let node = |kind| IrExpr::new(kind, span);
    let type_is = |k: Kinds| node(IrExprKind::TypeIs(Box::new(subject()), k));
    if !kinds.intersects(Kinds::INT) || kinds.intersects(Kinds::DOUBLE) {
        return type_is(kinds);
    }
    let num = |f: f64| node(IrExprKind::Const(Const::Double(f)));
    let bin = |op, lhs: IrExpr, rhs: IrExpr| {
        node(IrExprKind::Binary {
            op,
            op_span: span,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        })
    };
    let and = |a, b| node(IrExprKind::And(Box::new(a), Box::new(b)));
    let or = |a, b| node(IrExprKind::Or(Box::new(a), Box::new(b)));
    // `d ± 2^52 ∓ 2^52 == d`, with `first` the sign of the first step.
    let rounds_to_itself = |first, then| {
        let there = bin(first, subject(), num(TWO_POW_52));
        let back = bin(then, there, num(TWO_POW_52));
        bin(BinaryOp::Eq, back, subject())
    };
    let finite = bin(
        BinaryOp::Eq,
        bin(BinaryOp::Mul, subject(), num(0.0)),
        num(0.0),
    );
    let large = or(
        bin(BinaryOp::Ge, subject(), num(TWO_POW_52)),
        bin(BinaryOp::Le, subject(), num(-TWO_POW_52)),
    );
    let small_integral = node(IrExprKind::Cond(
        Box::new(bin(BinaryOp::Ge, subject(), num(0.0))),
        Box::new(rounds_to_itself(BinaryOp::Add, BinaryOp::Sub)),
        Box::new(rounds_to_itself(BinaryOp::Sub, BinaryOp::Add)),
    ));
    let integral_double = and(
        type_is(Kinds::DOUBLE),
        and(finite, or(large, small_integral)),
    );
    or(type_is(kinds), integral_double)
}
