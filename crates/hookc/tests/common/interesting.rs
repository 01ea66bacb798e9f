//! The values random policies and contexts draw from, shared by the
//! proptest differential check (`tests/suite/differential.rs`) and the fuzz
//! target of the same name (`fuzz/fuzz_targets/differential.rs`): integers at
//! the edges of overflow and of exact doubles, doubles at the edges of
//! integer conversion, strings with multi-byte characters and escapes, and
//! regex and glob patterns over them.

pub const INTERESTING_INTS: [i64; 12] = [
    i64::MAX,
    i64::MIN,
    i64::MAX - 1,
    i64::MIN + 1,
    3_037_000_500,
    -3_037_000_500,
    4_611_686_018_427_387_904,
    9_007_199_254_740_992,
    9_007_199_254_740_993,
    1_000_000,
    -1,
    0,
];

pub const INTERESTING_DOUBLES: [f64; 14] = [
    0.0,
    -0.0,
    0.5,
    1.5,
    -2.25,
    2.0,
    3.0,
    1e300,
    -1e300,
    1e-300,
    9_007_199_254_740_992.0,
    9.223_372_036_854_776e18,
    100.0,
    -7.0,
];

pub const STRINGS: [&str; 16] = [
    "",
    "a",
    "abc",
    "b",
    "ab",
    "k-1",
    "k",
    "K",
    "héllo",
    "日本語",
    "🎉x",
    "A\nB",
    "it's",
    "\\",
    "0123",
    "x y",
];

pub const PATTERNS: [&str; 14] = [
    "^a",
    "b+$",
    "[0-9]+",
    "é",
    "^$",
    "(?i)k",
    ".",
    r"^\p{L}+$",
    "a|b",
    // The backtracking engine's: look-around and a backreference.
    "a(?=b)",
    "(?<!a)b",
    r"(.)\1",
    r"^(?!.*[ée]).+$",
    "(?<=日)本",
];

/// Glob patterns over [`STRINGS`] (`glob()` / `op: glob`): wildcards,
/// classes, escapes, multi-byte characters, regex metacharacters that are
/// literal in a glob, and `?` against the newline of `"A\nB"`.
// The fuzz target shares this file without using every item.
#[allow(dead_code)]
pub const GLOBS: [&str; 22] = [
    "*",
    "",
    "a*",
    "*b",
    "?",
    "??",
    "a?c",
    "[a-c]*",
    "[!a-z]*",
    "[^ab]?",
    "h?llo",
    "*é*",
    "日本?",
    "🎉?",
    "A?B",
    r"\\",
    "k-[0-9]",
    "it's",
    "*'*",
    "[kK]",
    "x y",
    "Bash(git:*)",
];

/// The `when` text of a YAML leaf `{path, op, value}`
/// (`docs/src/semantics.md#condition-trees`), `v` being the value already
/// written as a literal and `holds_null` saying whether it is `null` (or, for
/// `in`, a list holding `null`); with the operator of the leaf's guard when
/// the text is `x && y` (`Some(true)`) or `x || y` (`Some(false)`). `None` for
/// an operator with no `when` form: `matches`, and the string operators,
/// whose type guard has no spelling.
pub fn leaf_when(
    path: &str,
    op: &str,
    v: &str,
    holds_null: bool,
) -> Option<(String, Option<bool>)> {
    let present_and = |core: String| (format!("{core} && has({path})"), Some(true));
    let absent_or = |core: String| (format!("!has({path}) || {core}"), Some(false));
    Some(match op {
        "eq" if holds_null => absent_or(format!("{path} == {v}")),
        "eq" => present_and(format!("{path} == {v}")),
        "ne" if holds_null => (format!("has({path}) && {path} != null"), Some(true)),
        "ne" => absent_or(format!("{path} != {v}")),
        "gt" => (format!("{path} > {v}"), None),
        "gte" => (format!("{path} >= {v}"), None),
        "lt" => (format!("{path} < {v}"), None),
        "lte" => (format!("{path} <= {v}"), None),
        "in" if holds_null => absent_or(format!("{path} in {v}")),
        "in" => present_and(format!("{path} in {v}")),
        "exists" => (format!("has({path}) && {path} != null"), Some(true)),
        _ => return None,
    })
}

/// The context schema random policies are checked against: typed roots (so
/// the checker has something to check), open objects (so deeper paths are
/// `any`).
pub fn schema_json() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "a": {"type": "object"},
            "n": {"type": "integer"},
            "d": {"type": "number"},
            "s": {"type": "string"},
            "b": {"type": "boolean"},
            "l": {"type": "array"},
            "o": {"type": "object"}
        }
    })
}

/// A string as an expression literal (quoted and escaped as paths are).
pub fn quote(s: &str) -> String {
    let mut out = String::new();
    // Writing to a `String` cannot fail.
    let _ = hookc_runtime::bytecode::path::write_quoted(&mut out, s);
    out
}

/// A double as an expression literal (always with `.` or an exponent).
pub fn double_literal(f: f64) -> String {
    format!("{f:?}")
}

/// A JSON value as a `when` literal (`None` for objects: there are no map
/// literals).
pub fn literal(v: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    Some(match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_i64() {
            Some(i) if !n.is_f64() => i.to_string(),
            _ => double_literal(n.as_f64()?),
        },
        Value::String(s) => quote(s),
        Value::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(literal)
                .collect::<Option<Vec<_>>>()?
                .join(", ")
        ),
        Value::Object(_) => return None,
    })
}
