//! Condition trees against seed 000's own evaluator
//! (`docs/src/semantics.md#condition-trees`).
//!
//! [`reference`] transcribes the seed's Python (`matches_condition` and
//! `apply_operator`, quoted rule by rule) into Rust, with the deviations
//! hookc documents written out where they apply. Random condition trees
//! (every operator of the seed's evaluator, and hookc's `glob`,
//! `path_match` and `runs`; `matches`
//! is in the seed's table but not in its evaluator, so it is left out here;
//! nested `all`/`any`/`not`,
//! values of every JSON kind, `null` included) are compiled by hookc, many
//! hooks to a policy, and evaluated on random contexts whose paths are
//! absent, `null` or of any kind. For every hook and context, the runtime's
//! explain trace (from a `serde_json::Value`, from JSON text and from the
//! reloaded artifact) must give the reference's outcome: matched where the
//! Python gives `True`, not matched where it gives `False`, an error
//! (`Outcome::Error`) where it raises; and `all()` and `decide()`, which take
//! the runtime's fast paths, must give the matches the reference gives.
//!
//! The RNG is seeded, so every run tests the same cases; `--nocapture`
//! prints the counts.

use hookc::compile::{compile, Input};
use hookc_runtime::{Context, Outcome, Policy};
use proptest::prelude::Rng;
use proptest::test_runner::{RngAlgorithm, TestRng};
use serde_json::{json, Map, Value};

/// The paths trees read: roots, fields of an object, a list index.
const PATHS: &[&str] = &["a", "b", "o.x", "o.y.z", "l[1]"];

/// Strings of contexts and values: the string operators' edge cases
/// (empty, prefixes, unicode) and the spellings Python's `str()` would
/// produce for other kinds (`None`, `True`, `1`), which hookc does not.
const STRINGS: &[&str] = &[
    "", "a", "ab", "abc", "b", "xyz", "a1c", "é", "éa", "None", "True", "1", "null",
];

/// Regex patterns, each with its meaning on strings without line breaks
/// (the generated strings have none), written without a regex engine.
type StrTest = fn(&str) -> bool;
const REGEXES: &[(&str, StrTest)] = &[
    ("^ab", |s| s.starts_with("ab")),
    ("a.c", |s| {
        let c: Vec<char> = s.chars().collect();
        c.windows(3).any(|w| w[0] == 'a' && w[2] == 'c')
    }),
    ("[0-9]", |s| s.chars().any(|c| c.is_ascii_digit())),
    ("x|é", |s| s.contains('x') || s.contains('é')),
    ("", |_| true),
];

/// Globs (not in the seed: hookc's, whole-string matches) with their
/// meaning.
const GLOBS: &[(&str, StrTest)] = &[
    ("a*", |s| s.starts_with('a')),
    ("*b", |s| s.ends_with('b')),
    ("?", |s| s.chars().count() == 1),
    ("a?c", |s| {
        let c: Vec<char> = s.chars().collect();
        c.len() == 3 && c[0] == 'a' && c[2] == 'c'
    }),
    ("*", |_| true),
];

/// Path globs (not in the seed: hookc's `path_match`) with their meaning
/// on the generated strings, which hold no `/`.
const PATH_GLOBS: &[(&str, StrTest)] = &[
    ("a*", |s| s.starts_with('a')),
    ("**", |_| true),
    ("**/b", |s| s == "b"),
    ("*c", |s| s.ends_with('c')),
    ("?", |s| s.chars().count() == 1),
];

// ---------------------------------------------------------------------------
// The reference: seed 000's evaluator.
// ---------------------------------------------------------------------------

mod reference {
    //! Seed 000's `matches_condition`, rule by rule. A value is
    //! `Option<&Value>`: `None` is Python's `None`, which is what an absent
    //! path reads as (the seed's `resolve_path` returns `None` for a path
    //! that does not resolve) and what JSON `null` is.

    use super::{GLOBS, PATH_GLOBS, REGEXES};
    use serde_json::Value;
    use std::cmp::Ordering;

    /// What the Python gives: `True`, `False`, or an exception.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Truth {
        True,
        False,
        Raises,
    }

    impl From<bool> for Truth {
        fn from(b: bool) -> Truth {
            if b {
                Truth::True
            } else {
                Truth::False
            }
        }
    }

    /// `resolve_path(context, path)`: each field of an object, each index
    /// of a list within bounds; anything else is `None`.
    fn resolve<'v>(context: &'v Value, path: &str) -> Option<&'v Value> {
        let mut at = context;
        for step in path.split('.') {
            let (field, index) = match step.split_once('[') {
                Some((f, rest)) => (f, rest.trim_end_matches(']').parse::<usize>().ok()),
                None => (step, None),
            };
            at = at.as_object()?.get(field)?;
            if let Some(i) = index {
                at = at.as_array()?.get(i)?;
            }
        }
        Some(at)
    }

    /// JSON `null` is Python's `None` too.
    fn py(v: Option<&Value>) -> Option<&Value> {
        v.filter(|v| !v.is_null())
    }

    /// Python's `a == e` on JSON values.
    ///
    /// Deviation (documented): Python's `True == 1` and `False == 0.0` are
    /// `True` (bool is a subclass of int); hookc keeps JSON's kinds apart,
    /// so a bool equals only a bool. Numbers: an int and a double compare
    /// by value, the int converted to a double (Python compares them
    /// exactly; the two differ only beyond 2^53).
    pub fn eq(a: Option<&Value>, e: Option<&Value>) -> bool {
        match (py(a), py(e)) {
            (None, None) => true,
            (None, _) | (_, None) => false,
            (Some(x), Some(y)) => match (x, y) {
                (Value::Bool(x), Value::Bool(y)) => x == y,
                (Value::Number(_), Value::Number(_)) => num_cmp(x, y) == Some(Ordering::Equal),
                (Value::String(x), Value::String(y)) => x == y,
                (Value::Array(x), Value::Array(y)) => {
                    x.len() == y.len() && x.iter().zip(y).all(|(p, q)| eq(Some(p), Some(q)))
                }
                (Value::Object(x), Value::Object(y)) => {
                    x.len() == y.len()
                        && x.iter()
                            .all(|(k, p)| y.get(k).is_some_and(|q| eq(Some(p), Some(q))))
                }
                _ => false,
            },
        }
    }

    /// Two JSON numbers: ints exactly, otherwise both as doubles; `None`
    /// when one is NaN.
    fn num_cmp(x: &Value, y: &Value) -> Option<Ordering> {
        match (x.as_i64(), y.as_i64(), x.is_f64() || y.is_f64()) {
            (Some(i), Some(j), false) => Some(i.cmp(&j)),
            _ => x.as_f64()?.partial_cmp(&y.as_f64()?),
        }
    }

    /// Python's `a > e` (and the other orderings): `Err` where Python
    /// raises `TypeError`.
    ///
    /// Python orders two numbers, two strings (by code point), and, since
    /// bool is an int, bools with bools and with numbers; it raises on
    /// `None` and on other mixed kinds. Deviations (documented): a bool
    /// with a number raises in hookc (bools are not numbers), and so do two
    /// lists, which Python orders item by item. (A `null`, list or object
    /// value is rejected at compile time; the generator does not write
    /// one.)
    fn order(a: Option<&Value>, e: &Value) -> Result<Option<Ordering>, ()> {
        let a = py(a).ok_or(())?;
        match (a, e) {
            (Value::Number(_), Value::Number(_)) => Ok(num_cmp(a, e)),
            (Value::String(x), Value::String(y)) => Ok(Some(x.as_str().cmp(y.as_str()))),
            (Value::Bool(x), Value::Bool(y)) => Ok(Some(x.cmp(y))),
            _ => Err(()),
        }
    }

    /// The seed's `apply_operator(actual, op, expected)`.
    pub fn apply(actual: Option<&Value>, op: &str, expected: Option<&Value>) -> Truth {
        let expected_value = expected.unwrap_or(&Value::Null);
        // 'gt': lambda a, e: a > e (and gte, lt, lte); NaN compares false.
        let ordered = |holds: fn(Ordering) -> bool| match order(actual, expected_value) {
            Ok(o) => Truth::from(o.is_some_and(holds)),
            Err(()) => Truth::Raises,
        };
        // 'contains': lambda a, e: e in str(a) (and starts_with, ends_with,
        // regex). Deviation (documented): no `str()`: on a non-string
        // (absent and null included) the operator is false.
        let string = |test: &dyn Fn(&str) -> bool| match py(actual) {
            Some(Value::String(s)) => Truth::from(test(s)),
            _ => Truth::False,
        };
        let text = expected_value.as_str().unwrap_or_default();
        match op {
            // 'eq': lambda a, e: a == e
            "eq" => Truth::from(eq(actual, expected)),
            // 'ne': lambda a, e: a != e
            "ne" => Truth::from(!eq(actual, expected)),
            "gt" => ordered(Ordering::is_gt),
            "gte" => ordered(Ordering::is_ge),
            "lt" => ordered(Ordering::is_lt),
            "lte" => ordered(Ordering::is_le),
            // 'in': lambda a, e: a in e. On a list: some item equals `a`.
            // On a mapping: `a` is a key; JSON keys are strings. Deviation
            // (documented): Python raises for a list or mapping `a`
            // (unhashable), hookc gives false.
            "in" => Truth::from(match expected_value {
                Value::Array(items) => items.iter().any(|i| eq(actual, Some(i))),
                Value::Object(keys) => match py(actual) {
                    Some(Value::String(k)) => keys.contains_key(k),
                    _ => false,
                },
                _ => unreachable!("`in` takes a list or a mapping"),
            }),
            "contains" => string(&|s| s.contains(text)),
            "starts_with" => string(&|s| s.starts_with(text)),
            "ends_with" => string(&|s| s.ends_with(text)),
            // 'regex': lambda a, e: re.search(e, str(a)) is not None
            "regex" => {
                let (_, test) = REGEXES.iter().find(|(p, _)| *p == text).unwrap();
                string(test)
            }
            // Not in the seed's table: hookc's whole-string glob.
            "glob" => {
                let (_, test) = GLOBS.iter().find(|(p, _)| *p == text).unwrap();
                string(test)
            }
            // Not in the seed's table: hookc's path glob.
            "path_match" => {
                let (_, test) = PATH_GLOBS.iter().find(|(p, _)| *p == text).unwrap();
                string(test)
            }
            // Not in the seed's table: hookc's `runs`, a shell command string
            // that runs a program of that name (or of the list).
            "runs" => {
                let names: Vec<&str> = match expected_value {
                    Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
                    other => other.as_str().into_iter().collect(),
                };
                string(&|s| {
                    hookc_runtime::functions::shell::parse(s)
                        .commands
                        .iter()
                        .any(|c| names.contains(&&*c.program))
                })
            }
            // 'exists': lambda a, e: a is not None
            "exists" => Truth::from(py(actual).is_some()),
            other => unreachable!("no operator `{other}`"),
        }
    }

    /// `matches_condition(context, condition)`.
    pub fn matches(context: &Value, condition: &Value) -> Truth {
        // if 'all' in condition:
        //     return all(matches_condition(context, c) for c in condition['all'])
        // `all()` stops at the first false item; an exception raised by an
        // item propagates at once.
        if let Some(items) = condition.get("all").and_then(Value::as_array) {
            for c in items {
                match matches(context, c) {
                    Truth::True => {}
                    other => return other,
                }
            }
            return Truth::True;
        }
        // if 'any' in condition: return any(...): stops at the first true.
        if let Some(items) = condition.get("any").and_then(Value::as_array) {
            for c in items {
                match matches(context, c) {
                    Truth::False => {}
                    other => return other,
                }
            }
            return Truth::False;
        }
        // if 'not' in condition: return not matches_condition(...)
        if let Some(inner) = condition.get("not") {
            return match matches(context, inner) {
                Truth::True => Truth::False,
                Truth::False => Truth::True,
                Truth::Raises => Truth::Raises,
            };
        }
        // path = condition['path']; op = condition['op'];
        // expected = condition.get('value');
        // actual = resolve_path(context, path)
        let path = condition["path"].as_str().unwrap();
        let op = condition["op"].as_str().unwrap();
        apply(resolve(context, path), op, condition.get("value"))
    }
}

use reference::Truth;

// ---------------------------------------------------------------------------
// Random trees and contexts.
// ---------------------------------------------------------------------------

struct Gen(TestRng);

impl Gen {
    fn new(seed: u8) -> Gen {
        Gen(TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]))
    }

    fn below(&mut self, n: usize) -> usize {
        (self.0.next_u64() % n as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    fn string(&mut self) -> Value {
        json!(self.pick(STRINGS))
    }

    fn number(&mut self) -> Value {
        match self.below(4) {
            0 => json!(self.pick(&[-2i64, -1, 0, 1, 2, 3])),
            1 => json!(self.pick(&[-1.5f64, -0.0, 0.0, 0.5, 1.0, 2.0, 2.5])),
            2 => json!(self.pick(&[i64::MAX, i64::MIN, 1i64 << 53])),
            _ => json!(self.pick(&[9.223372036854776e18f64, 1e300, -1e300])),
        }
    }

    /// A value of any JSON kind; shallow containers.
    fn value(&mut self, depth: usize) -> Value {
        let kinds = if depth == 0 { 4 } else { 6 };
        match self.below(kinds) {
            0 => Value::Null,
            1 => json!(self.below(2) == 0),
            2 => self.number(),
            3 => self.string(),
            4 => Value::Array((0..self.below(3)).map(|_| self.value(depth - 1)).collect()),
            _ => {
                let mut m = Map::new();
                for _ in 0..self.below(3) {
                    let k = self.pick(&["x", "a", "ab", "None"]);
                    m.insert(k.to_owned(), self.value(depth - 1));
                }
                Value::Object(m)
            }
        }
    }

    /// A scalar, `null` included: the items of an `in` list.
    fn scalar(&mut self) -> Value {
        self.value(0)
    }

    /// A value Python and hookc can order with something.
    fn orderable(&mut self) -> Value {
        match self.below(3) {
            0 => self.number(),
            1 => self.string(),
            _ => json!(self.below(2) == 0),
        }
    }

    fn leaf(&mut self) -> Value {
        let path = self.pick(PATHS);
        // Every operator of the compiler's table but `matches` (a schema
        // subset of hookc's own, left out: see the module doc), so that a
        // new operator reaches the reference below and must be written there.
        let ops: Vec<&str> = hookc::testing::OPERATORS
            .iter()
            .copied()
            .filter(|op| *op != "matches")
            .collect();
        let op = self.pick(&ops);
        let value = match op {
            "eq" | "ne" => {
                // `null` often: the absent path's own case.
                if self.below(4) == 0 {
                    Value::Null
                } else {
                    self.value(2)
                }
            }
            "gt" | "gte" | "lt" | "lte" => self.orderable(),
            "in" => {
                if self.below(6) == 0 {
                    let mut m = Map::new();
                    for k in ["a", "ab", "1"].into_iter().take(self.below(4)) {
                        m.insert(k.to_owned(), self.scalar());
                    }
                    Value::Object(m)
                } else {
                    Value::Array((0..self.below(4)).map(|_| self.scalar()).collect())
                }
            }
            "contains" | "starts_with" | "ends_with" => self.string(),
            "regex" => json!(self.pick(REGEXES).0),
            "glob" => json!(self.pick(GLOBS).0),
            "path_match" => json!(self.pick(PATH_GLOBS).0),
            "runs" => {
                if self.below(3) == 0 {
                    json!([self.pick(STRINGS), self.pick(STRINGS)])
                } else {
                    json!(self.pick(STRINGS))
                }
            }
            _ => return json!({"path": path, "op": op}),
        };
        json!({"path": path, "op": op, "value": value})
    }

    fn tree(&mut self, depth: usize) -> Value {
        if depth == 0 {
            return self.leaf();
        }
        match self.below(8) {
            0 | 1 => {
                let items: Vec<Value> = (0..self.below(5)).map(|_| self.tree(depth - 1)).collect();
                json!({ "all": items })
            }
            2 | 3 => {
                let items: Vec<Value> = (0..self.below(5)).map(|_| self.tree(depth - 1)).collect();
                json!({ "any": items })
            }
            4 => json!({ "not": self.tree(depth - 1) }),
            _ => self.leaf(),
        }
    }

    /// A context: each root absent, `null`, or of any kind; `o` and `l`
    /// mostly shaped so that the deeper paths can resolve.
    fn context(&mut self) -> Value {
        let mut ctx = Map::new();
        for root in ["a", "b"] {
            if self.below(4) != 0 {
                ctx.insert(root.to_owned(), self.value(1));
            }
        }
        match self.below(4) {
            0 => {}
            1 => {
                ctx.insert("o".to_owned(), self.value(1));
            }
            _ => {
                let mut o = Map::new();
                if self.below(4) != 0 {
                    o.insert("x".to_owned(), self.value(1));
                }
                match self.below(3) {
                    0 => {}
                    1 => {
                        o.insert("y".to_owned(), self.value(1));
                    }
                    _ => {
                        let mut y = Map::new();
                        if self.below(3) != 0 {
                            y.insert("z".to_owned(), self.value(1));
                        }
                        o.insert("y".to_owned(), Value::Object(y));
                    }
                }
                ctx.insert("o".to_owned(), Value::Object(o));
            }
        }
        match self.below(3) {
            0 => {}
            1 => {
                ctx.insert("l".to_owned(), self.value(1));
            }
            _ => {
                let items = (0..self.below(4)).map(|_| self.value(1)).collect();
                ctx.insert("l".to_owned(), Value::Array(items));
            }
        }
        Value::Object(ctx)
    }
}

// ---------------------------------------------------------------------------
// The comparison.
// ---------------------------------------------------------------------------

/// Hooks per compiled policy.
const HOOKS: usize = 40;
/// Policies.
const POLICIES: usize = 60;
/// Contexts per policy.
const CONTEXTS: usize = 30;

/// A policy of one terminal hook per tree, `t0`, `t1`, ... in that order,
/// on event `error`. Its schema is an open object, so every path is typed
/// `any` and nothing is rejected for its type.
fn policy(trees: &[Value]) -> Policy {
    let hooks: Vec<Value> = trees
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"id": format!("t{i}"), "event": "error", "condition": t, "action": {"type": "abort"}}))
        .collect();
    let doc = json!({"event_context_schema": {"type": "object"}, "hooks": hooks});
    // YAML is a superset of JSON: `1.0` stays a double, `1` an int.
    let text = serde_json::to_string_pretty(&doc).unwrap();
    let c = compile(&[Input::new("trees.yaml", text.clone())]);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "{text}\n{errors:#?}");
    c.into_policy().unwrap()
}

fn truth_of(outcome: &Outcome) -> Option<Truth> {
    match outcome {
        Outcome::Matched => Some(Truth::True),
        Outcome::NotMatched => Some(Truth::False),
        Outcome::Error { .. } => Some(Truth::Raises),
        Outcome::NotBool(_) | Outcome::Disabled => None,
    }
}

#[test]
fn trees_evaluate_as_seed_000_evaluates_them() {
    let mut g = Gen::new(0);
    let (mut cases, mut counts) = (0usize, [0usize; 3]);
    let mut differences: Vec<String> = Vec::new();
    for _ in 0..POLICIES {
        let trees: Vec<Value> = (0..HOOKS).map(|_| g.tree(3)).collect();
        let from_source = policy(&trees);
        let from_artifact = Policy::from_artifact(&from_source.to_artifact()).unwrap();
        for _ in 0..CONTEXTS {
            let ctx = g.context();
            let text = serde_json::to_string(&ctx).unwrap();
            let expected: Vec<Truth> = trees.iter().map(|t| reference::matches(&ctx, t)).collect();
            let runs: [(&str, &Policy, Context); 3] = [
                ("value", &from_source, Context::Value(&ctx)),
                ("json", &from_source, Context::json(&text)),
                ("artifact", &from_artifact, Context::Value(&ctx)),
            ];
            for (how, p, context) in runs {
                let trace = p.query("error", context).explain().unwrap();
                assert_eq!(trace.hooks.len(), HOOKS);
                for (i, (hook, want)) in trace.hooks.iter().zip(&expected).enumerate() {
                    let got = truth_of(&hook.outcome);
                    if got != Some(*want) {
                        differences.push(format!(
                            "{how}: tree {}\n  context {text}\n  seed 000: {want:?}, hookc: {:?}",
                            trees[i], hook.outcome
                        ));
                    }
                }
                // The fast paths (dispatch, flat conjunctions, the index).
                let matched: Vec<String> = (0..HOOKS)
                    .filter(|i| expected[*i] == Truth::True)
                    .map(|i| format!("t{i}"))
                    .collect();
                let all: Vec<String> = p
                    .query("error", context)
                    .all()
                    .unwrap()
                    .iter()
                    .map(|m| m.hook.to_owned())
                    .collect();
                if all != matched {
                    differences.push(format!(
                        "{how}: all() gives {all:?}, seed 000 {matched:?}\n  context {text}"
                    ));
                }
                let first = p.query("error", context).decide().unwrap();
                if first.map(str::to_owned) != matched.first().cloned() {
                    differences.push(format!(
                        "{how}: decide() gives {first:?}, seed 000 {:?}\n  context {text}",
                        matched.first()
                    ));
                }
            }
            for t in &expected {
                counts[*t as usize] += 1;
            }
            cases += HOOKS;
        }
    }
    println!(
        "{cases} (tree, context) cases: {} true, {} false, {} raise",
        counts[0], counts[1], counts[2]
    );
    // Each outcome is well represented, so the comparison means something.
    for c in counts {
        assert!(c > cases / 20, "{counts:?} of {cases}");
    }
    assert!(
        differences.is_empty(),
        "{} differences, the first:\n{}",
        differences.len(),
        differences
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The cases the issue names, one by one: on an absent field `ne`,
/// `not: {eq}`, `eq: null` and `in: [.., null]` are true, `gt` raises, and
/// a string operator is false.
#[test]
fn absent_fields_read_as_none() {
    let trees = [
        json!({"path": "a", "op": "ne", "value": "x"}),
        json!({"not": {"path": "a", "op": "eq", "value": "x"}}),
        json!({"path": "a", "op": "eq", "value": null}),
        json!({"path": "a", "op": "in", "value": ["x", null]}),
        json!({"path": "a", "op": "gt", "value": 1}),
        json!({"path": "a", "op": "contains", "value": "x"}),
        json!({"path": "a", "op": "exists"}),
        // `all` stops at the first false before reaching the raise; `any`
        // raises before reaching the true, where CEL's `||` would absorb
        // the error.
        json!({"all": [{"path": "a", "op": "eq", "value": "x"}, {"path": "a", "op": "gt", "value": 1}]}),
        json!({"any": [{"path": "a", "op": "gt", "value": 1}, {"path": "a", "op": "eq", "value": null}]}),
    ];
    let want = [
        Truth::True,
        Truth::True,
        Truth::True,
        Truth::True,
        Truth::Raises,
        Truth::False,
        Truth::False,
        Truth::False,
        Truth::Raises,
    ];
    let p = policy(&trees);
    let ctx = json!({"b": 1});
    let trace = p.query("error", Context::Value(&ctx)).explain().unwrap();
    for ((tree, hook), want) in trees.iter().zip(&trace.hooks).zip(want) {
        assert_eq!(reference::matches(&ctx, tree), want, "reference: {tree}");
        assert_eq!(truth_of(&hook.outcome), Some(want), "hookc: {tree}");
    }
}
