//! The engine-neutral form of a policy that the peer translators read: for
//! each event, its hooks in hookc's evaluation order, each condition as a
//! small tree of [`Cond`] nodes over context paths.
//!
//! It is read from hookc's own checked IR ([`hookc::check::policy::CheckedPolicy`]), so the
//! order (priority descending, directive layer before builtin, source order)
//! and the meaning of every condition are hookc's, whichever way the hook was
//! written (YAML condition tree, `when` expression, directive XML). IR the
//! translators cannot state (arithmetic, macros, `size`, comparisons of two
//! paths) is rejected here with a reason.
//!
//! # Meaning (hookc's, which every translation must reproduce)
//!
//! A hook matches when its condition evaluates to `true`; `false`, an error
//! value, or a non-bool does not match. A path that does not resolve is an
//! error, not `null`. `&&`/`||` absorb an error when the other side decides
//! (CEL). So every node has three outcomes, and a translation of a node under
//! a negation must say exactly when the node is *false*, not merely "not
//! true": see [`Leaf`] for each leaf's outcomes.

use hookc::check::ty::Kinds;
use hookc::ir::{self, BinaryOp, Builtin, Const, IrExprKind, UnaryOp};
use hookc_runtime::bytecode::path::Step as HStep;
use serde_json::Value;
use std::fmt;

/// A condition that a translator cannot state, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// The hook.
    pub hook: String,
    /// Why.
    pub reason: String,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hook `{}`: {}", self.hook, self.reason)
    }
}

impl std::error::Error for Unsupported {}

/// One step of a context path: an object key or a list index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// An object key.
    Field(String),
    /// A list index.
    Index(i64),
}

/// A context path: the root name, then the steps after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CtxPath {
    /// The root (a top-level key of the context).
    pub root: String,
    /// The steps after the root.
    pub steps: Vec<Step>,
    /// As hookc writes it (`error.headers['retry-after']`).
    pub text: String,
}

impl CtxPath {
    /// Every key of the path, root first, if it has no index step.
    pub fn keys(&self) -> Option<Vec<&str>> {
        std::iter::once(Some(self.root.as_str()))
            .chain(self.steps.iter().map(|s| match s {
                Step::Field(f) => Some(f.as_str()),
                Step::Index(_) => None,
            }))
            .collect()
    }
}

/// A comparison operator (`p OP constant`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// The operator with its operands swapped (`c < p` is `p > c`).
    fn swapped(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            other => other,
        }
    }

    /// The operator that holds exactly when this one does not, for two
    /// values that can be ordered (no NaN reaches a leaf: JSON has none).
    pub fn negated(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
        }
    }

    /// The symbol shared by CEL and Rego (`==`, `<=`, ...).
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// A string method (`p.startsWith(s)`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrOp {
    /// `contains`
    Contains,
    /// `startsWith`
    StartsWith,
    /// `endsWith`
    EndsWith,
}

/// A test of the value at one path. The outcomes, as hookc has them:
///
/// | test | true | false | error (does not match, and `!` keeps it an error) |
/// |---|---|---|---|
/// | `Cmp(Eq/Ne, c)` | equal / unequal | the other | path missing |
/// | `Cmp(Lt.., c)` | holds | does not hold | path missing, or not the constant's kind (number or string) |
/// | `In(list)` | an item equals it | none does | path missing |
/// | `Str(op, s)` | holds | does not | path missing or not a string |
/// | `Regex(re)` | found (unanchored) | not found | path missing or not a string |
/// | `IsTrue` (a bare bool path) | `true` | `false` | missing or not a bool |
/// | `Has` | every step resolves (value may be null) | otherwise | never |
/// | `Exists` (`has(p) && p != null`) | present and not null | otherwise | never |
/// | `TypeIs(kinds)` | present and of one of the kinds | otherwise | never |
#[derive(Debug, Clone, PartialEq)]
pub enum Test {
    /// A comparison with a constant.
    Cmp(CmpOp, Value),
    /// Membership in a constant list.
    In(Vec<Value>),
    /// A string method with a constant argument.
    Str(StrOp, String),
    /// `matches`: unanchored search, `regex` crate syntax.
    Regex(String),
    /// The path used as a bool.
    IsTrue,
    /// `has(p)`.
    Has,
    /// `has(p) && p != null` (the YAML `exists` operator).
    Exists,
    /// The value's kind is one of these (from YAML `matches` schemas).
    TypeIs(KindSet),
}

/// A set of JSON kinds as hookc distinguishes them (ints and doubles apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindSet {
    /// `null`
    pub null: bool,
    /// `bool`
    pub bool: bool,
    /// `int`
    pub int: bool,
    /// `double`
    pub double: bool,
    /// `string`
    pub string: bool,
    /// `list`
    pub list: bool,
    /// `object`
    pub object: bool,
}

impl KindSet {
    fn from_kinds(k: Kinds) -> KindSet {
        KindSet {
            null: Kinds::NULL.within(k),
            bool: Kinds::BOOL.within(k),
            int: Kinds::INT.within(k),
            double: Kinds::DOUBLE.within(k),
            string: Kinds::STRING.within(k),
            list: Kinds::LIST.within(k),
            object: Kinds::OBJECT.within(k),
        }
    }

    /// Whether ints and doubles are both in or both out (engines that have
    /// one number kind can state only such sets).
    pub fn numbers_together(&self) -> bool {
        self.int == self.double
    }
}

/// A test of one path.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaf {
    /// The path.
    pub path: CtxPath,
    /// The test.
    pub test: Test,
}

/// A condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Cond {
    /// A constant.
    Const(bool),
    /// Every item (`&&`, flattened; empty: true).
    All(Vec<Cond>),
    /// Some item (`||`, flattened; empty: false).
    Any(Vec<Cond>),
    /// `!`
    Not(Box<Cond>),
    /// A test of one path.
    Leaf(Leaf),
    /// `c ? then : otherwise` (condition trees link an item that can error
    /// to the next so). `c` is `true` or `false`: the branch's outcome; `c`
    /// an error: that error (neither branch is taken, and `!` keeps it).
    /// (Every [`Cond`] is `true`, `false` or an error, so the
    /// `no such overload` of a non-bool condition is an error too.)
    If(Box<Cond>, Box<Cond>, Box<Cond>),
}

/// One hook of an event.
#[derive(Debug, Clone, PartialEq)]
pub struct Hook {
    /// Its id.
    pub id: String,
    /// Its condition; `None` always matches.
    pub cond: Option<Cond>,
}

/// The hooks listening to one event, in evaluation order.
#[derive(Debug, Clone, PartialEq)]
pub struct EventHooks {
    /// The event.
    pub event: String,
    /// Its hooks, in evaluation order.
    pub hooks: Vec<Hook>,
}

/// A whole policy: every event it names, each with its hooks. Hooks on `"*"`
/// are in every event's list (an event no hook names has only those, and is
/// not listed: translators treat an unlisted event as having no hooks, so a
/// policy with `"*"` hooks is rejected by [`Model::from_ir`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Events in order of first appearance.
    pub events: Vec<EventHooks>,
}

impl Model {
    /// The model of a checked policy.
    pub fn from_ir(policy: &hookc::check::policy::CheckedPolicy) -> Result<Model, Unsupported> {
        let mut events: Vec<EventHooks> = Vec::new();
        for h in policy.hooks().iter().filter(|h| h.enabled) {
            let names = match &h.events {
                hookc::check::policy::Events::Named(names) => names,
                hookc::check::policy::Events::Any => {
                    return Err(Unsupported {
                        hook: h.id.clone(),
                        reason: "listens to `*` (the harness translates named events only)".into(),
                    })
                }
            };
            let cond = match &h.condition {
                Some(e) => Some(cond(e, policy.paths()).map_err(|reason| Unsupported {
                    hook: h.id.clone(),
                    reason,
                })?),
                None => None,
            };
            for name in names {
                let hook = Hook {
                    id: h.id.clone(),
                    cond: cond.clone(),
                };
                match events.iter_mut().find(|e| &e.event == name) {
                    Some(e) => e.hooks.push(hook),
                    None => events.push(EventHooks {
                        event: name.clone(),
                        hooks: vec![hook],
                    }),
                }
            }
        }
        Ok(Model { events })
    }

    /// The hooks of `event` (empty if none listens to it).
    pub fn hooks(&self, event: &str) -> &[Hook] {
        self.events
            .iter()
            .find(|e| e.event == event)
            .map_or(&[], |e| e.hooks.as_slice())
    }
}

fn path_of(
    id: hookc_runtime::bytecode::path::PathId,
    paths: &hookc_runtime::bytecode::path::PathTable,
) -> Result<CtxPath, String> {
    let p = paths
        .get(id)
        .ok_or_else(|| "a path id outside the path table".to_owned())?;
    let steps = p
        .steps()
        .skip(1)
        .map(|s| match s {
            HStep::Field(f) => Step::Field(f.to_owned()),
            HStep::Index(i) => Step::Index(i),
        })
        .collect();
    Ok(CtxPath {
        root: p.root_name().to_owned(),
        steps,
        text: p.to_string(),
    })
}

fn cmp_op(op: BinaryOp) -> Option<CmpOp> {
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

fn leaf(path: CtxPath, test: Test) -> Cond {
    Cond::Leaf(Leaf { path, test })
}

/// The condition of one IR expression in a bool position.
fn cond(e: &ir::IrExpr, paths: &hookc_runtime::bytecode::path::PathTable) -> Result<Cond, String> {
    let unsupported = |what: &str| Err(format!("{what} has no translation"));
    match &e.kind {
        IrExprKind::Const(Const::Bool(b)) => Ok(Cond::Const(*b)),
        IrExprKind::Path(id) => Ok(leaf(path_of(*id, paths)?, Test::IsTrue)),
        IrExprKind::HasPath(id) => Ok(leaf(path_of(*id, paths)?, Test::Has)),
        IrExprKind::Unary(UnaryOp::Not, inner) => Ok(Cond::Not(Box::new(cond(inner, paths)?))),
        IrExprKind::And(a, b) => {
            // `exists` is `has(p) && p != null`.
            if let (
                IrExprKind::HasPath(h),
                IrExprKind::Binary {
                    op: BinaryOp::Ne,
                    lhs,
                    rhs,
                    ..
                },
            ) = (&a.kind, &b.kind)
            {
                if matches!(lhs.kind, IrExprKind::Path(p) if p == *h)
                    && matches!(rhs.kind, IrExprKind::Const(Const::Null))
                {
                    return Ok(leaf(path_of(*h, paths)?, Test::Exists));
                }
            }
            let mut items = Vec::new();
            for side in [a, b] {
                match cond(side, paths)? {
                    Cond::All(inner) => items.extend(inner),
                    other => items.push(other),
                }
            }
            Ok(Cond::All(items))
        }
        IrExprKind::Or(a, b) => {
            let mut items = Vec::new();
            for side in [a, b] {
                match cond(side, paths)? {
                    Cond::Any(inner) => items.extend(inner),
                    other => items.push(other),
                }
            }
            Ok(Cond::Any(items))
        }
        IrExprKind::Binary { op, lhs, rhs, .. } => match (&lhs.kind, &rhs.kind, op) {
            (IrExprKind::Path(id), IrExprKind::Const(Const::List(items)), BinaryOp::In) => {
                Ok(leaf(
                    path_of(*id, paths)?,
                    Test::In(items.iter().map(Const::to_json).collect()),
                ))
            }
            (IrExprKind::Path(id), IrExprKind::Const(c), op) => match cmp_op(*op) {
                Some(op) => Ok(leaf(path_of(*id, paths)?, Test::Cmp(op, c.to_json()))),
                None => unsupported(&format!("`{}` with a constant", op.symbol())),
            },
            (IrExprKind::Const(c), IrExprKind::Path(id), op) => match cmp_op(*op) {
                Some(op) => Ok(leaf(
                    path_of(*id, paths)?,
                    Test::Cmp(op.swapped(), c.to_json()),
                )),
                None => unsupported(&format!("a constant `{}` a path", op.symbol())),
            },
            _ => unsupported(&format!(
                "`{}` of operands other than a path and a constant",
                op.symbol()
            )),
        },
        IrExprKind::Call(func, args) => {
            let op = match func {
                Builtin::Contains => StrOp::Contains,
                Builtin::StartsWith => StrOp::StartsWith,
                Builtin::EndsWith => StrOp::EndsWith,
                other => return unsupported(&format!("`{}`", other.def().qualified_name())),
            };
            match args.as_slice() {
                [ir::IrExpr {
                    kind: IrExprKind::Path(id),
                    ..
                }, ir::IrExpr {
                    kind: IrExprKind::Const(Const::String(s)),
                    ..
                }] => Ok(leaf(path_of(*id, paths)?, Test::Str(op, s.clone()))),
                _ => unsupported("a string method on operands other than a path and a string"),
            }
        }
        IrExprKind::Matches(subject, re) => match &subject.kind {
            IrExprKind::Path(id) => Ok(leaf(path_of(*id, paths)?, Test::Regex(re.pattern.clone()))),
            _ => unsupported("`matches` of a computed value"),
        },
        IrExprKind::TypeIs(subject, kinds) => match &subject.kind {
            IrExprKind::Path(id) => Ok(leaf(
                path_of(*id, paths)?,
                Test::TypeIs(KindSet::from_kinds(*kinds)),
            )),
            _ => unsupported("a kind test of a computed value"),
        },
        IrExprKind::SchemaMatch { check, .. } => cond(check, paths),
        IrExprKind::Cond(c, then, otherwise) => Ok(Cond::If(
            Box::new(cond(c, paths)?),
            Box::new(cond(then, paths)?),
            Box::new(cond(otherwise, paths)?),
        )),
        IrExprKind::Macro { .. } => unsupported("a list macro"),
        _ => unsupported("this expression"),
    }
}

/// Where a node sits: under an even (positive) or odd (negative) number of
/// negations. Translators whose engine has no error value need the exact
/// "is false" form of a node in negative position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Polarity {
    /// The node must be stated as "is true".
    Pos,
    /// The node must be stated as "is false" (an error is neither).
    Neg,
}

impl Polarity {
    /// The polarity under one more negation.
    pub fn flip(self) -> Polarity {
        match self {
            Polarity::Pos => Polarity::Neg,
            Polarity::Neg => Polarity::Pos,
        }
    }
}

/// A JSON number's text as a CEL/Rego literal keeping int vs double
/// (`10` vs `10.0`).
pub fn number_literal(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        format!("{}.0", u)
    } else {
        let f = n.as_f64().unwrap_or(f64::NAN);
        let s = format!("{f:?}");
        if s.contains(['.', 'e', 'E']) {
            s
        } else {
            format!("{s}.0")
        }
    }
}
