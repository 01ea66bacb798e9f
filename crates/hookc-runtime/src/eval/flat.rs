//! An event's hooks as flat conjunctions ([`Policy::flat_plan`]): for a
//! first-match policy whose every hook of the event is a plain `&&` of
//! context leaves (a comparison with a constant, membership in a constant
//! list, `has`), the leaves of each hook in evaluation order, read from the
//! shape the compiler's code has ([`HookShape::conjunction`]). A host
//! language can decide such an event without calling in: the first hook
//! whose every leaf is `true` and whose action is terminal decides, a
//! collected one is passed over, and a leaf that is anything but `true`
//! (`false`, an error, a path that does not resolve) makes its hook not
//! match (`docs/src/semantics.md`). The Node package does so for `decide`
//! (`crates/hookc-node/flat.js`), proven against the addon on random
//! policies and contexts.

use super::Policy;
use crate::bytecode::path::Path;
use crate::bytecode::shape::{HookShape, Leaf};
use crate::bytecode::{CmpOp, DecisionModel, Effect};
use serde_json::Value;

/// One hook of a flat plan.
#[derive(Debug, Clone, PartialEq)]
pub struct FlatHook<'p> {
    /// Its id.
    pub id: &'p str,
    /// Whether its match decides (a terminal action); `false` for a
    /// collected one, which the walk passes over.
    pub decides: bool,
    /// The leaves, every one of which is `true` exactly when the hook's
    /// condition is (none: the hook has no condition).
    pub leaves: Vec<FlatLeaf<'p>>,
}

/// A leaf of a flat hook.
#[derive(Debug, Clone, PartialEq)]
pub enum FlatLeaf<'p> {
    /// `path OP value`.
    Cmp {
        /// The context path.
        path: &'p Path,
        /// The comparison.
        op: CmpOp,
        /// The constant.
        value: &'p Value,
    },
    /// `path in values` (a constant list).
    In {
        /// The context path.
        path: &'p Path,
        /// The list's items.
        values: &'p [Value],
    },
    /// `has(path)`: every segment resolves.
    Has {
        /// The context path.
        path: &'p Path,
    },
}

impl Policy {
    /// The hooks of `event` as flat conjunctions, in evaluation order; `None`
    /// when the policy uses the decision model beyond first match, reads
    /// the environment, or when some hook of the event is anything else
    /// (another condition shape, a regex leaf, a pattern table, a transform
    /// or an awaited action).
    pub fn flat_plan(&self, event: &str) -> Option<Vec<FlatHook<'_>>> {
        let p = self.program();
        if p.model != DecisionModel::default() || p.reads_environment {
            return None;
        }
        p.hooks_for(event)
            .iter()
            .map(|&k| {
                let entry = p.hooks.get(k as usize)?;
                let decides = match p.action(entry.action)?.effect {
                    Effect::Terminal => true,
                    Effect::Collected => false,
                    Effect::Transform | Effect::Await => return None,
                };
                let (start, end) = entry.code;
                let leaves = if start == end {
                    Vec::new()
                } else {
                    let code = p.code.get(start as usize..end as usize)?;
                    HookShape::decode(code, start)
                        .conjunction?
                        .iter()
                        .map(|leaf| flat_leaf(p, *leaf))
                        .collect::<Option<Vec<_>>>()?
                };
                Some(FlatHook {
                    id: p.get_string(entry.id)?,
                    decides,
                    leaves,
                })
            })
            .collect()
    }
}

/// A leaf's flat form; `None` for a regex leaf (a host language's regexes
/// are another dialect) or a bad index.
fn flat_leaf(p: &crate::bytecode::Program, leaf: Leaf) -> Option<FlatLeaf<'_>> {
    Some(match leaf {
        Leaf::Cmp { path, op, konst } => FlatLeaf::Cmp {
            path: p.path(path)?,
            op,
            value: p.konst(konst)?,
        },
        Leaf::InSet { path, set } => match p.konst(p.set(set)?)? {
            Value::Array(values) => FlatLeaf::In {
                path: p.path(path)?,
                values,
            },
            _ => return None,
        },
        Leaf::Has { path } => FlatLeaf::Has {
            path: p.path(path)?,
        },
        Leaf::Matches { .. } => return None,
    })
}
