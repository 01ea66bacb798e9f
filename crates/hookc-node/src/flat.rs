//! The flat plans `flat.js` evaluates (`NativePolicy::flat_plan`): a
//! runtime [`FlatLeaf`] as JSON, when JavaScript reads it exactly as the
//! addon does. Strings compare for equality only (JavaScript orders
//! strings by UTF-16 units, the runtime by code points), numbers are those
//! a JavaScript number holds exactly (integers below 2^53), and a list's
//! items are strings or such numbers.

use hookc_runtime::bytecode::path::{Path, Segment};
use hookc_runtime::bytecode::CmpOp;
use hookc_runtime::FlatLeaf;
use serde_json::{json, Value};

/// Below this magnitude an integer is the same in a JavaScript number.
const EXACT: f64 = 9_007_199_254_740_992.0;

/// A leaf as `flat.js` reads it; `None` when it would read it otherwise.
pub fn leaf_json(leaf: &FlatLeaf<'_>) -> Option<Value> {
    Some(match leaf {
        FlatLeaf::Cmp { path, op, value } => {
            let ordering = !matches!(op, CmpOp::Eq | CmpOp::Ne);
            let fits = match value {
                Value::Number(_) => exact_number(value),
                Value::String(_) | Value::Bool(_) | Value::Null => !ordering,
                Value::Array(_) | Value::Object(_) => false,
            };
            if !fits {
                return None;
            }
            json!(["cmp", path_json(path)?, op.symbol(), value])
        }
        FlatLeaf::In { path, values } => {
            let fits = values
                .iter()
                .all(|v| v.is_string() || (v.is_number() && exact_number(v)));
            if !fits {
                return None;
            }
            json!(["in", path_json(path)?, values])
        }
        FlatLeaf::Has { path } => json!(["has", path_json(path)?]),
    })
}

/// A number JavaScript holds exactly.
fn exact_number(v: &Value) -> bool {
    v.as_f64().is_some_and(|n| n.is_finite() && n.abs() < EXACT)
        && (v.is_f64() || v.as_i64().is_some_and(|i| (i as f64).abs() < EXACT))
}

/// `[root, key or index, ...]`; `None` for an index JavaScript would not
/// read as the runtime does (negative).
fn path_json(path: &Path) -> Option<Value> {
    let mut out = vec![Value::from(path.root_name())];
    for s in path.segments() {
        out.push(match s {
            Segment::Field(name) => Value::from(name.as_str()),
            Segment::Index(i) if *i >= 0 && (*i as f64) < EXACT => Value::from(*i),
            Segment::Index(_) => return None,
        });
    }
    Some(Value::Array(out))
}
