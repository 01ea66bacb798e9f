//! Differential and property tests of evaluation: the bytecode VM against
//! the reference evaluator ([`hookc::testing::reference`]), on random expressions and
//! random contexts; and YAML condition trees against the `when` expressions
//! of the same meaning, on random policies.
//!
//! - `vm_agrees_with_the_reference_evaluator`: thousands of random `when`
//!   expressions (a type-directed generator over the whole surface: every
//!   operator, `has`, `size`, the string functions, `matches`, `glob`
//!   (whose regex translation the VM runs, the reference evaluator matching
//!   the glob directly), nested macros with their variables, `?:`, list
//!   literals, `in` on short lists and on
//!   long constant lists (which the VM hashes), selections and indexes on
//!   computed values), each compiled through the real pipeline (parse,
//!   resolve, type-check; expressions the checker rejects are skipped and
//!   counted) and lowered, then evaluated on several random contexts
//!   (missing keys, nulls, wrong kinds, ints at the `i64` limits, doubles
//!   from `-0.0` to `1e300`, unicode strings). The VM (with and without
//!   error tracing, and reading the context from JSON text) must give the
//!   reference evaluator's value, strictly ([`reference::same_result`]: ints
//!   and doubles apart, doubles bit for bit), or both an error. Every
//!   instruction an expression can lower to must occur.
//! - `trees_and_when_expressions_agree`: random policies (both layers,
//!   priorities, event lists and `"*"`, disabled hooks) written twice, once
//!   with condition trees and once with the equivalent `when` expressions.
//!   Both compile to the same IR, and on random contexts give the same
//!   matches in the same order by the reference evaluator and by the VM; the
//!   runtime library (from a `Value`, from JSON text, reloaded from its
//!   artifact, and its explain trace, hook by hook) agrees. Trees using what
//!   `when` cannot say (`matches` schemas, object values) are compared
//!   between the reference evaluator, the VM and the runtime only.
//! - `the_iteration_budget_is_the_same_in_both_evaluators`: at its edge.
//! - `template_expressions_fill_alike`: the generator's expressions as
//!   `${...}` holes of an action's templates (a whole template, text
//!   around two holes, a `??` fallback), compiled through the whole
//!   pipeline into an artifact and decided on random contexts: the runtime
//!   fills the action exactly as the reference evaluator does.
//!
//! Seeds are fixed, so every run tests the same cases; on a mismatch proptest
//! shrinks the case and the message shows the expression, the context and
//! all results. Run with `--nocapture` for statistics.

use hookc::check::policy::CheckedPolicy;
use hookc::check::schema::ContextSchema;
use hookc::compile::{compile, Input};
use hookc::expr_program::{compile_expr, ExprMode};
use hookc::frontend::doc::Node;
use hookc::span::{FileId, Span};
use hookc::testing::reference;
use hookc_runtime::bytecode::Op;
use hookc_runtime::internals::context::{PathCache, Source};
use hookc_runtime::internals::json_text::PathTrie;
use hookc_runtime::internals::value::Val;
use hookc_runtime::internals::vm::{eval_hook, ErrorSite};
use hookc_runtime::verify::VerifiedProgram;
use hookc_runtime::{self as runtime, Outcome, Overrides};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::strategy::Union;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::{json, Map, Value};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};

// ---------------------------------------------------------------------------
// Shared: the context schema, random contexts, the runner.
// ---------------------------------------------------------------------------

fn schema() -> ContextSchema {
    let mut diags = hookc::diag::Diagnostics::new();
    let node = Node::from_json(&schema_json(), Span::new(FileId(0), 0, 0));
    let schema = ContextSchema::from_node(&node, &mut diags);
    assert!(!diags.has_errors());
    schema
}

/// A deterministic runner: fixed seed, no failure files.
fn runner(cases: u32, seed: u8) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..Config::default()
    };
    TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
    )
}

use crate::interesting;
use interesting::{
    double_literal, leaf_when, literal, quote, schema_json, GLOBS, INTERESTING_DOUBLES,
    INTERESTING_INTS, PATTERNS, STRINGS,
};

fn int_value() -> BoxedStrategy<i64> {
    prop_oneof![
        4 => -10i64..=10,
        2 => select(INTERESTING_INTS.to_vec()),
        1 => any::<i64>(),
    ]
    .boxed()
}

fn double_value() -> BoxedStrategy<f64> {
    prop_oneof![
        3 => select(INTERESTING_DOUBLES.to_vec()),
        1 => any::<f64>().prop_filter("finite", |f| f.is_finite()),
    ]
    .boxed()
}

fn string_value() -> BoxedStrategy<String> {
    prop_oneof![
        4 => select(STRINGS.to_vec()).prop_map(str::to_owned),
        1 => "\\PC{0,6}",
    ]
    .boxed()
}

/// A JSON scalar of any kind.
fn scalar() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        int_value().prop_map(Value::from),
        double_value().prop_map(Value::from),
        string_value().prop_map(Value::String),
    ]
    .boxed()
}

/// Any JSON value: scalars, short lists, small objects.
fn json_value() -> BoxedStrategy<Value> {
    scalar()
        .prop_recursive(2, 12, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((select(vec!["k", "k-1", "x", "b", "c", ""]), inner), 0..4)
                    .prop_map(|entries| {
                        Value::Object(
                            entries
                                .into_iter()
                                .map(|(k, v)| (k.to_owned(), v))
                                .collect(),
                        )
                    }),
            ]
        })
        .boxed()
}

/// A value of the given kind most of the time, anything else sometimes.
fn mostly(typed: BoxedStrategy<Value>) -> BoxedStrategy<Value> {
    prop_oneof![6 => typed, 1 => json_value()].boxed()
}

/// A random context over the paths the generators read; each root may be
/// missing.
fn context() -> BoxedStrategy<Value> {
    let object_with = |keys: Vec<&'static str>| {
        prop::collection::vec((select(keys), json_value()), 0..4).prop_map(|entries| {
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect::<Map<_, _>>(),
            )
        })
    };
    let a = mostly(
        prop_oneof![
            object_with(vec!["b", "c", "k"]).boxed(),
            object_with(vec!["c", "k"])
                .prop_map(|b| json!({ "b": b }))
                .boxed(),
        ]
        .boxed(),
    );
    let n = mostly(int_value().prop_map(Value::from).boxed());
    let d = mostly(
        prop_oneof![
            3 => double_value().prop_map(Value::from),
            1 => int_value().prop_map(Value::from),
        ]
        .boxed(),
    );
    let s = mostly(string_value().prop_map(Value::String).boxed());
    let b = mostly(any::<bool>().prop_map(Value::Bool).boxed());
    let l = mostly(
        prop_oneof![
            4 => prop::collection::vec(json_value(), 0..5),
            1 => prop::collection::vec(scalar(), 5..24),
            1 => prop::collection::vec(int_value().prop_map(Value::from), 0..6),
        ]
        .prop_map(Value::Array)
        .boxed(),
    );
    let o = mostly(object_with(vec!["k-1", "k", "x", ""]).boxed());
    let slot = |s: BoxedStrategy<Value>| prop::option::weighted(0.85, s);
    (
        slot(a),
        slot(n),
        slot(d),
        slot(s),
        slot(b),
        slot(l),
        slot(o),
    )
        .prop_map(|(a, n, d, s, b, l, o)| {
            let mut map = Map::new();
            for (k, v) in [
                ("a", a),
                ("n", n),
                ("d", d),
                ("s", s),
                ("b", b),
                ("l", l),
                ("o", o),
            ] {
                if let Some(v) = v {
                    map.insert(k.to_owned(), v);
                }
            }
            Value::Object(map)
        })
        .boxed()
}

fn show(v: &Val<'_>) -> String {
    match v {
        Val::Error(e) => format!("error ({e})"),
        Val::Double(d) => format!("{d:?} (double)"),
        Val::Int(i) => format!("{i} (int)"),
        other => other
            .to_json()
            .map_or_else(|| format!("{other:?}"), |j| j.to_string()),
    }
}

// ---------------------------------------------------------------------------
// Random `when` expressions, type-directed.
// ---------------------------------------------------------------------------

/// The type an expression is generated for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Ty {
    Bool,
    Int,
    Double,
    Str,
    List,
    /// A context value of unknown kind (`a.b`, `l[0]`, a macro variable over `l`).
    Any,
}

/// The type of a macro variable: what its range holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum VarTy {
    Any,
    Int,
    Str,
}

type S = BoxedStrategy<String>;

/// Composite levels above the leaves.
const DEPTH: usize = 4;
/// Deepest macro nesting.
const MAX_VARS: usize = 2;

/// The generators, one per (type, depth, variables in scope), built on
/// first use and shared (strategies are reference-counted).
struct Gen {
    table: RefCell<HashMap<GenKey, S>>,
}

/// A generator's type, depth, and the variables in scope.
type GenKey = (Ty, usize, Vec<VarTy>);

fn lit(s: &'static str) -> S {
    Just(s.to_owned()).boxed()
}

fn one_of(items: &[&'static str]) -> S {
    select(items.to_vec()).prop_map(str::to_owned).boxed()
}

fn int_lit() -> S {
    int_value().prop_map(|i| i.to_string()).boxed()
}

fn double_lit() -> S {
    double_value().prop_map(double_literal).boxed()
}

fn str_lit() -> S {
    string_value().prop_map(|s| quote(&s)).boxed()
}

fn bin(a: S, op: &'static str, b: S) -> S {
    (a, b)
        .prop_map(move |(x, y)| format!("({x} {op} {y})"))
        .boxed()
}

fn bin_any_op(a: S, ops: &[&'static str], b: S) -> S {
    (a, select(ops.to_vec()), b)
        .prop_map(|(x, op, y)| format!("({x} {op} {y})"))
        .boxed()
}

fn unary(op: &'static str, a: S) -> S {
    a.prop_map(move |x| format!("{op}({x})")).boxed()
}

fn cond(c: S, a: S, b: S) -> S {
    (c, a, b)
        .prop_map(|(c, a, b)| format!("({c} ? {a} : {b})"))
        .boxed()
}

fn union(arms: Vec<(u32, S)>) -> S {
    Union::new_weighted(arms).boxed()
}

/// Short constant lists.
const SMALL_LISTS: [&str; 7] = [
    "[]",
    "[1, 2, 3]",
    "['a', 'b']",
    "[1, 'a', 2.5, null, true]",
    "[[1], [2, 3]]",
    "[1.0, 2]",
    "[-0.0, 'k-1', false]",
];

/// Constant lists of at least 8 items: `in` on these is a hashed set in the VM.
const LARGE_INTS: &str =
    "[0, 1, 2, 3, 4, 5, 6, 7, 42, -1, 9223372036854775807, -9223372036854775808]";
const LARGE_STRS: &str = "['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'k-1', 'héllo', '', 'K']";
const LARGE_DOUBLES: &str = "[0.5, 1.5, 2.0, 3.0, -0.0, 1e300, 4.0, 5.0, 9007199254740993.0]";
const LARGE_MIXED: &str =
    "[1, 2.0, 2.5, 'a', null, true, false, [1], -0.0, 9007199254740993, 'k-1', [1.0, 'x']]";

impl Gen {
    fn new() -> Gen {
        Gen {
            table: RefCell::new(HashMap::new()),
        }
    }

    fn get(&self, ty: Ty, depth: usize, vars: &[VarTy]) -> S {
        let key = (ty, depth, vars.to_vec());
        if let Some(s) = self.table.borrow().get(&key) {
            return s.clone();
        }
        let s = self.build(ty, depth, vars);
        self.table.borrow_mut().insert(key, s.clone());
        s
    }

    /// Names of the variables of a type in scope.
    fn vars_of(vars: &[VarTy], t: VarTy) -> Vec<String> {
        vars.iter()
            .enumerate()
            .filter(|(_, v)| **v == t)
            .map(|(i, _)| format!("v{i}"))
            .collect()
    }

    fn leaf(ty: Ty, vars: &[VarTy]) -> S {
        let with_vars = |base: S, t: VarTy| {
            let names = Gen::vars_of(vars, t);
            if names.is_empty() {
                base
            } else {
                union(vec![(3, base), (2, select(names).boxed())])
            }
        };
        match ty {
            Ty::Bool => union(vec![
                (3, one_of(&["true", "false", "b"])),
                (
                    2,
                    one_of(&[
                        "has(a.b)",
                        "has(o.k)",
                        "has(a.b.c)",
                        "has(o['k-1'])",
                        "has(l[0])",
                    ]),
                ),
            ]),
            Ty::Int => with_vars(
                union(vec![
                    (4, int_lit()),
                    (3, lit("n")),
                    (
                        2,
                        one_of(&["size(s)", "size(l)", "l.size()", "size(o)", "s.size()"]),
                    ),
                ]),
                VarTy::Int,
            ),
            Ty::Double => union(vec![(3, double_lit()), (2, lit("d"))]),
            Ty::Str => with_vars(union(vec![(3, str_lit()), (2, lit("s"))]), VarTy::Str),
            Ty::List => union(vec![(3, lit("l")), (2, one_of(&SMALL_LISTS))]),
            Ty::Any => with_vars(
                one_of(&[
                    "a.b", "l[0]", "l[1]", "o['k-1']", "o.k", "a.b.c", "a", "o", "l[n]",
                ]),
                VarTy::Any,
            ),
        }
    }

    fn build(&self, ty: Ty, depth: usize, vars: &[VarTy]) -> S {
        let leaf = Gen::leaf(ty, vars);
        if depth == 0 {
            return leaf;
        }
        let g = |t: Ty| self.get(t, depth - 1, vars);
        let composite = match ty {
            Ty::Bool => self.bool_composite(depth, vars),
            Ty::Int => union(vec![
                (
                    6,
                    bin_any_op(g(Ty::Int), &["+", "-", "*", "/", "%"], g(Ty::Int)),
                ),
                (1, unary("-", g(Ty::Int))),
                (1, cond(g(Ty::Bool), g(Ty::Int), g(Ty::Int))),
                (1, g(Ty::Str).prop_map(|s| format!("size({s})")).boxed()),
                (1, g(Ty::List).prop_map(|l| format!("size({l})")).boxed()),
                (1, bin(g(Ty::Any), "*", g(Ty::Int))),
            ]),
            Ty::Double => union(vec![
                (
                    4,
                    bin_any_op(g(Ty::Double), &["+", "-", "*", "/"], g(Ty::Double)),
                ),
                (
                    2,
                    bin_any_op(g(Ty::Int), &["+", "-", "*", "/"], g(Ty::Double)),
                ),
                (1, unary("-", g(Ty::Double))),
                (1, cond(g(Ty::Bool), g(Ty::Double), g(Ty::Double))),
            ]),
            Ty::Str => union(vec![
                (3, bin(g(Ty::Str), "+", g(Ty::Str))),
                (1, cond(g(Ty::Bool), g(Ty::Str), g(Ty::Str))),
            ]),
            Ty::List => union(vec![
                (2, bin(g(Ty::List), "+", g(Ty::List))),
                (
                    2,
                    (g(Ty::Any), g(Ty::Int))
                        .prop_map(|(x, y)| format!("[{x}, {y}]"))
                        .boxed(),
                ),
                (
                    1,
                    (g(Ty::Str), g(Ty::Str), g(Ty::Str))
                        .prop_map(|(x, y, z)| format!("[{x}, {y}, {z}]"))
                        .boxed(),
                ),
                (1, cond(g(Ty::Bool), g(Ty::List), g(Ty::List))),
            ]),
            Ty::Any => {
                let mut arms = vec![
                    (
                        3,
                        (g(Ty::List), g(Ty::Int))
                            .prop_map(|(l, i)| format!("{l}[{i}]"))
                            .boxed(),
                    ),
                    (2, g(Ty::Str).prop_map(|s| format!("o[{s}]")).boxed()),
                    (1, g(Ty::Str).prop_map(|s| format!("a.b[{s}]")).boxed()),
                    (1, cond(g(Ty::Bool), g(Ty::Any), g(Ty::Any))),
                    (
                        1,
                        (g(Ty::Any), g(Ty::Int), g(Ty::Int))
                            .prop_map(|(x, y, i)| format!("[{x}, {y}][{i}]"))
                            .boxed(),
                    ),
                    (1, g(Ty::Any).prop_map(|x| format!("[{x}][0].k")).boxed()),
                ];
                let anys = Gen::vars_of(vars, VarTy::Any);
                if !anys.is_empty() {
                    arms.push((
                        2,
                        (select(anys), one_of(&["k", "b", "c"]))
                            .prop_map(|(v, f)| format!("{v}.{f}"))
                            .boxed(),
                    ));
                }
                union(arms)
            }
        };
        union(vec![(1, leaf), (3, composite)])
    }

    fn bool_composite(&self, depth: usize, vars: &[VarTy]) -> S {
        let g = |t: Ty| self.get(t, depth - 1, vars);
        let eq_pairs = Union::new_weighted(vec![
            (2, (g(Ty::Int), g(Ty::Int)).boxed()),
            (1, (g(Ty::Int), g(Ty::Double)).boxed()),
            (1, (g(Ty::Double), g(Ty::Double)).boxed()),
            (2, (g(Ty::Str), g(Ty::Str)).boxed()),
            (1, (g(Ty::Bool), g(Ty::Bool)).boxed()),
            (1, (g(Ty::List), g(Ty::List)).boxed()),
            (2, (g(Ty::Any), g(Ty::Int)).boxed()),
            (2, (g(Ty::Any), g(Ty::Str)).boxed()),
            (1, (g(Ty::Any), g(Ty::Double)).boxed()),
            (2, (g(Ty::Any), g(Ty::Any)).boxed()),
            (1, (g(Ty::Any), g(Ty::List)).boxed()),
            (1, (g(Ty::Any), lit("null")).boxed()),
        ]);
        let equality = (eq_pairs, select(vec!["==", "!="]))
            .prop_map(|((x, y), op)| format!("({x} {op} {y})"))
            .boxed();
        let ord_pairs = Union::new_weighted(vec![
            (2, (g(Ty::Int), g(Ty::Int)).boxed()),
            (1, (g(Ty::Int), g(Ty::Double)).boxed()),
            (1, (g(Ty::Double), g(Ty::Int)).boxed()),
            (1, (g(Ty::Double), g(Ty::Double)).boxed()),
            (2, (g(Ty::Str), g(Ty::Str)).boxed()),
            (1, (g(Ty::Bool), g(Ty::Bool)).boxed()),
            (2, (g(Ty::Any), g(Ty::Int)).boxed()),
            (1, (g(Ty::Any), g(Ty::Str)).boxed()),
            (1, (g(Ty::Any), g(Ty::Double)).boxed()),
            (1, (g(Ty::Any), g(Ty::Any)).boxed()),
        ]);
        let ordering = (ord_pairs, select(vec!["<", "<=", ">", ">="]))
            .prop_map(|((x, y), op)| format!("({x} {op} {y})"))
            .boxed();
        let strings = (
            g(Ty::Str),
            select(vec!["contains", "startsWith", "endsWith"]),
            g(Ty::Str),
        )
            .prop_map(|(r, m, a)| format!("{r}.{m}({a})"))
            .boxed();
        let matches = (
            union(vec![(3, g(Ty::Str)), (1, g(Ty::Any))]),
            select(PATTERNS.to_vec()),
        )
            .prop_map(|(r, p)| format!("{r}.matches({})", quote(p)))
            .boxed();
        // Globs: the VM runs their regex translation, the reference
        // evaluator matches them directly. Random ones (some invalid, which
        // the checker rejects) reach corners the fixed list does not.
        let globs = (
            union(vec![(3, g(Ty::Str)), (1, g(Ty::Any))]),
            prop_oneof![
                3 => select(GLOBS.to_vec()).prop_map(str::to_owned),
                1 => r"[ab*?\[\]!\-é\\.(]{0,6}",
            ],
        )
            .prop_map(|(r, p)| format!("{r}.glob({})", quote(&p)))
            .boxed();
        let membership = union(vec![
            (2, bin(g(Ty::Int), "in", g(Ty::List))),
            (2, bin(g(Ty::Str), "in", g(Ty::List))),
            (2, bin(g(Ty::Any), "in", g(Ty::List))),
            (1, bin(g(Ty::Any), "in", lit("l"))),
            (2, bin(g(Ty::Int), "in", lit(LARGE_INTS))),
            (2, bin(g(Ty::Str), "in", lit(LARGE_STRS))),
            (1, bin(g(Ty::Double), "in", lit(LARGE_DOUBLES))),
            (2, bin(g(Ty::Any), "in", lit(LARGE_MIXED))),
            (1, bin(g(Ty::Int), "in", lit(LARGE_MIXED))),
            (1, bin(g(Ty::Str), "in", lit("o"))),
            (1, bin(g(Ty::Any), "in", lit("a"))),
        ]);
        let mut arms: Vec<(u32, S)> = vec![
            (2, unary("!", g(Ty::Bool))),
            (3, bin(g(Ty::Bool), "&&", g(Ty::Bool))),
            (3, bin(g(Ty::Bool), "||", g(Ty::Bool))),
            (1, cond(g(Ty::Bool), g(Ty::Bool), g(Ty::Bool))),
            (5, equality),
            (5, ordering),
            (2, strings),
            (2, matches),
            (2, globs),
            (4, membership),
            (
                1,
                g(Ty::Bool)
                    .prop_map(|c| format!("has(({c} ? o : a).k)"))
                    .boxed(),
            ),
        ];
        let anys = Gen::vars_of(vars, VarTy::Any);
        if !anys.is_empty() {
            arms.push((
                1,
                (select(anys), one_of(&["k", "b"]))
                    .prop_map(|(v, f)| format!("has({v}.{f})"))
                    .boxed(),
            ));
        }
        if vars.len() < MAX_VARS {
            arms.push((4, self.macro_call(depth, vars)));
        }
        union(arms)
    }

    /// `range.exists(v, body)` and friends, the body generated with the new
    /// variable in scope (typed by what the range holds).
    fn macro_call(&self, depth: usize, vars: &[VarTy]) -> S {
        let name = format!("v{}", vars.len());
        let g = |t: Ty| self.get(t, depth - 1, vars);
        let ranges: Vec<(u32, S, VarTy)> = vec![
            (4, one_of(&["l", "a.b", "a.b.c"]), VarTy::Any),
            (2, lit("o"), VarTy::Str),
            (
                1,
                one_of(&["[1, 2, 3]", "[0, -1, 9223372036854775807]"]),
                VarTy::Int,
            ),
            (1, one_of(&["['a', 'k-1', 'héllo']", "[]"]), VarTy::Str),
            (
                1,
                g(Ty::List).prop_map(|l| format!("({l})")).boxed(),
                VarTy::Any,
            ),
            (
                1,
                (g(Ty::Int), g(Ty::Int))
                    .prop_map(|(x, y)| format!("[{x}, {y}]"))
                    .boxed(),
                VarTy::Int,
            ),
        ];
        let arms = ranges
            .into_iter()
            .map(|(w, range, vt)| {
                let mut inner = vars.to_vec();
                inner.push(vt);
                let body = self.get(Ty::Bool, depth - 1, &inner);
                let name = name.clone();
                let s = (range, select(vec!["exists", "all", "exists_one"]), body)
                    .prop_map(move |(r, m, b)| format!("{r}.{m}({name}, {b})"))
                    .boxed();
                (w, s)
            })
            .collect();
        union(arms)
    }
}

/// A random expression: mostly a condition (checked as one), sometimes a
/// value of another type.
fn expression(gen: &Gen) -> BoxedStrategy<(String, ExprMode)> {
    let value = union(vec![
        (2, gen.get(Ty::Int, DEPTH - 1, &[])),
        (1, gen.get(Ty::Double, DEPTH - 1, &[])),
        (1, gen.get(Ty::Str, DEPTH - 1, &[])),
        (1, gen.get(Ty::List, DEPTH - 1, &[])),
        (2, gen.get(Ty::Any, DEPTH - 1, &[])),
    ]);
    prop_oneof![
        4 => gen.get(Ty::Bool, DEPTH, &[]).prop_map(|e| (e, ExprMode::Condition)),
        1 => value.prop_map(|e| (e, ExprMode::Value)),
    ]
    .boxed()
}

/// The VM's value of hook 0 on a context, without and with error tracing
/// (which must not change the result).
fn vm_eval<'a>(prog: &'a VerifiedProgram, ctx: &'a Value) -> (Val<'a>, Val<'a>) {
    let paths = &prog.program().paths;
    let mut cache = PathCache::new(paths, Source::Document(ctx));
    let plain = eval_hook(prog, 0, &mut cache, None);
    let mut cache = PathCache::new(paths, Source::Document(ctx));
    let mut site = ErrorSite::default();
    let traced = eval_hook(prog, 0, &mut cache, Some(&mut site));
    (plain, traced)
}

/// The instruction's name, without operands.
fn op_name(op: &Op) -> String {
    let text = format!("{op:?}");
    text.split(['(', ' ', '{'])
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// The instructions `when` expressions lower to.
const EXPRESSION_OPS: [&str; 37] = [
    "Const",
    "True",
    "False",
    "Null",
    "Path",
    "Var",
    "Field",
    "Index",
    "HasPath",
    "HasField",
    "Not",
    "Neg",
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Rem",
    "Cmp",
    "In",
    "InSet",
    "Size",
    "Contains",
    "StartsWith",
    "EndsWith",
    "Matches",
    "MakeList",
    "PathCmpConst",
    "PathInSet",
    "PathMatches",
    "AndShort",
    "AndJoin",
    "OrShort",
    "OrJoin",
    "Branch",
    "Jump",
    "MacroStart",
    "MacroNext",
];

#[derive(Default)]
struct Stats {
    generated: Cell<usize>,
    compiled: Cell<usize>,
    pairs: Cell<usize>,
    trues: Cell<usize>,
    falses: Cell<usize>,
    errors: Cell<usize>,
    others: Cell<usize>,
}

fn bump(c: &Cell<usize>) {
    c.set(c.get() + 1);
}

const EXPRESSIONS: u32 = 1500;
const CONTEXTS_PER_EXPRESSION: usize = 4;

#[test]
fn vm_agrees_with_the_reference_evaluator() {
    let schema = schema();
    let gen = Gen::new();
    let strategy = (
        expression(&gen),
        prop::collection::vec(context(), CONTEXTS_PER_EXPRESSION),
    );
    let stats = Stats::default();
    let first_rejections = RefCell::new(Vec::new());
    let op_counts: RefCell<BTreeMap<String, usize>> = RefCell::new(BTreeMap::new());
    let result = runner(EXPRESSIONS, 7).run(&strategy, |((text, mode), contexts)| {
        bump(&stats.generated);
        let compiled = match compile_expr(&text, &schema, mode) {
            Ok(c) => c,
            Err(diags) => {
                let mut rejections = first_rejections.borrow_mut();
                if rejections.len() < 5 {
                    let why: Vec<String> = diags.iter().map(|d| d.message.clone()).collect();
                    rejections.push(format!("{text}: {}", why.join("; ")));
                }
                return Ok(());
            }
        };
        bump(&stats.compiled);
        let program = hookc_runtime::verify::verify(hookc::lower::lower(&compiled.policy()))
            .map_err(|e| TestCaseError::fail(format!("`{text}`: verification failed: {e}")))?;
        let mut ops = op_counts.borrow_mut();
        for op in &program.program().code {
            *ops.entry(op_name(op)).or_insert(0) += 1;
        }
        drop(ops);
        for ctx in &contexts {
            bump(&stats.pairs);
            let consts = reference::Constants::new(compiled.expr());
            let by_reference = reference::eval_with(compiled.expr(), compiled.paths(), ctx, &consts);
            let (by_vm, traced) = vm_eval(&program, ctx);
            // The same context read from JSON text, extracting only the
            // program's paths (as `runtime::Policy::evaluate_json` does),
            // against the document parsed from the same text (so that both
            // read numbers with the same parser).
            let text_ctx = ctx.to_string();
            let reparsed: Value = serde_json::from_str(&text_ctx).unwrap();
            let (by_vm_reparsed, _) = vm_eval(&program, &reparsed);
            let paths = &program.program().paths;
            let extracted = PathTrie::new(paths)
                .extract(paths, text_ctx.as_bytes())
                .map_err(|e| TestCaseError::fail(format!("{ctx}: {e}")))?;
            let mut cache = PathCache::new(paths, Source::Extracted(&extracted));
            let from_text = eval_hook(&program, 0, &mut cache, None);
            match &by_reference {
                Val::Bool(true) => bump(&stats.trues),
                Val::Bool(false) => bump(&stats.falses),
                Val::Error(_) => bump(&stats.errors),
                _ => bump(&stats.others),
            }
            if !reference::same_result(&by_reference, &by_vm)
                || !reference::same_result(&by_vm, &traced)
                || !reference::same_result(&by_vm_reparsed, &from_text)
            {
                return Err(TestCaseError::fail(format!(
                    "the VM and the reference evaluator disagree\n  expression: {text}\n  context:    {ctx}\n  reference:  {}\n  VM:         {}\n  VM traced:  {}\n  VM, JSON text: {} (on the same text parsed: {})",
                    show(&by_reference),
                    show(&by_vm),
                    show(&traced),
                    show(&from_text),
                    show(&by_vm_reparsed)
                )));
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (generated, compiled) = (stats.generated.get(), stats.compiled.get());
    println!(
        "differential: {generated} expressions generated, {compiled} compiled ({}%), {} (expression, context) pairs: {} true, {} false, {} error, {} other values",
        compiled * 100 / generated.max(1),
        stats.pairs.get(),
        stats.trues.get(),
        stats.falses.get(),
        stats.errors.get(),
        stats.others.get(),
    );
    for r in first_rejections.borrow().iter() {
        println!("  rejected, e.g.: {r}");
    }
    let ops = op_counts.borrow();
    println!("  instructions run through: {ops:?}");
    // Every instruction the expression language can produce is exercised
    // (`TypeIs` comes only from YAML `matches` schemas: see the tree test).
    let missing: Vec<&str> = EXPRESSION_OPS
        .iter()
        .copied()
        .filter(|op| !ops.contains_key(*op))
        .collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
    assert!(
        compiled * 100 >= generated * 70,
        "only {compiled} of {generated} generated expressions compile: the generator is not well-typed enough"
    );
    assert!(
        stats.pairs.get() >= 3000,
        "too few cases: {}",
        stats.pairs.get()
    );
    // The generator is not degenerate: every outcome is common.
    let pairs = stats.pairs.get();
    for (what, n) in [
        ("true", stats.trues.get()),
        ("false", stats.falses.get()),
        ("error", stats.errors.get()),
    ] {
        assert!(n * 20 >= pairs, "only {n} of {pairs} results are {what}");
    }
}

/// The macro iteration budget is the same in both evaluators, at its edge.
#[test]
fn the_iteration_budget_is_the_same_in_both_evaluators() {
    let schema = schema();
    let max = hookc_runtime::limits::MAX_MACRO_ITERATIONS;
    let cases = [
        ("l.all(x, true)", max, Some(true)),
        ("l.all(x, true)", max + 1, None),
        ("l.exists(x, false)", max, Some(false)),
        ("l.exists(x, false)", max + 1, None),
        // The budget is per evaluation, over all macros.
        ("l.all(x, true) && l.all(y, true)", max / 2, Some(true)),
        ("l.all(x, true) && l.all(y, true)", max / 2 + 1, None),
        // Nested: 317 + 317 * 317 body runs.
        ("l.all(x, l.all(y, true))", 317, None),
        ("l.all(x, l.all(y, true))", 315, Some(true)),
    ];
    for (text, len, expected) in cases {
        let ctx = json!({ "l": vec![0; len] });
        let compiled = compile_expr(text, &schema, ExprMode::Condition).unwrap();
        let program =
            hookc_runtime::verify::verify(hookc::lower::lower(&compiled.policy())).unwrap();
        let consts = reference::Constants::new(compiled.expr());
        let by_reference = reference::eval_with(compiled.expr(), compiled.paths(), &ctx, &consts);
        let (by_vm, _) = vm_eval(&program, &ctx);
        let want = match expected {
            Some(b) => matches!(by_reference, Val::Bool(x) if x == b),
            None => by_reference.is_error(),
        };
        assert!(
            want,
            "{text} over {len} items: reference gives {}",
            show(&by_reference)
        );
        assert!(
            reference::same_result(&by_reference, &by_vm),
            "{text} over {len} items: reference {} but VM {}",
            show(&by_reference),
            show(&by_vm)
        );
    }
}

// ---------------------------------------------------------------------------
// Condition trees and `when` expressions of the same meaning.
// ---------------------------------------------------------------------------

/// A YAML condition tree.
#[derive(Debug, Clone)]
enum Tree {
    All(Vec<Tree>),
    Any(Vec<Tree>),
    Not(Box<Tree>),
    Leaf {
        path: &'static str,
        op: &'static str,
        value: Option<Value>,
    },
}

/// What a leaf's path holds, by the schema.
#[derive(Debug, Clone, Copy)]
enum PathTy {
    Int,
    Num,
    Str,
    Bool,
    List,
    Obj,
    Any,
}

const TREE_PATHS: [(&str, PathTy); 10] = [
    ("n", PathTy::Int),
    ("d", PathTy::Num),
    ("s", PathTy::Str),
    ("b", PathTy::Bool),
    ("l", PathTy::List),
    ("o", PathTy::Obj),
    ("a.b", PathTy::Any),
    ("o['k-1']", PathTy::Any),
    ("l[0]", PathTy::Any),
    ("a.b.c", PathTy::Any),
];

fn number_value() -> BoxedStrategy<Value> {
    prop_oneof![
        int_value().prop_map(Value::from),
        double_value().prop_map(Value::from)
    ]
    .boxed()
}

fn list_of(item: BoxedStrategy<Value>, small: bool) -> BoxedStrategy<Value> {
    let len = if small { 0..4 } else { 8..14 };
    prop::collection::vec(item, len)
        .prop_map(Value::Array)
        .boxed()
}

/// JSON-Schema fragments for `matches` leaves (compiled into `TypeIs` checks
/// and comparisons; trees only: they have no `when` form).
const MATCHES_SCHEMAS: [&str; 9] = [
    r#"{"type": "string"}"#,
    r#"{"type": ["integer", "null"]}"#,
    r#"{"type": "number", "minimum": 0, "exclusiveMaximum": 10.5}"#,
    r#"{"type": "string", "minLength": 1, "maxLength": 5, "pattern": "^[a-z]"}"#,
    r#"{"enum": ["a", "b", 1, 2.5, null]}"#,
    r#"{"const": 3}"#,
    r#"{"type": "object", "required": ["k"], "properties": {"k": {"type": "integer", "minimum": 1}}}"#,
    r#"{"type": ["array", "boolean"]}"#,
    r#"{"properties": {"b": {"maximum": 0}, "c": {"const": "x"}}}"#,
];

/// A leaf's operator and value.
type OpValue = BoxedStrategy<(&'static str, Option<Value>)>;

/// An operator and a value fitting a path of this type.
fn op_value(t: PathTy, tree_only: bool) -> OpValue {
    let with =
        |op: &'static str, v: BoxedStrategy<Value>| v.prop_map(move |v| (op, Some(v))).boxed();
    let compare = |v: BoxedStrategy<Value>| {
        (select(vec!["eq", "ne", "gt", "gte", "lt", "lte"]), v)
            .prop_map(|(op, v)| (op, Some(v)))
            .boxed()
    };
    let eq_ne = |v: BoxedStrategy<Value>| {
        (select(vec!["eq", "ne"]), v)
            .prop_map(|(op, v)| (op, Some(v)))
            .boxed()
    };
    let strings = || {
        (
            select(vec!["contains", "starts_with", "ends_with"]),
            string_value(),
        )
            .prop_map(|(op, s)| (op, Some(Value::String(s))))
            .boxed()
    };
    let regex = || {
        prop_oneof![
            select(PATTERNS.to_vec()).prop_map(|p| ("regex", Some(Value::String(p.to_owned())))),
            select(GLOBS.to_vec()).prop_map(|p| ("glob", Some(Value::String(p.to_owned())))),
        ]
        .boxed()
    };
    let exists = || Just(("exists", None)).boxed();
    let schema = || {
        select(MATCHES_SCHEMAS.to_vec())
            .prop_map(|text| ("matches", Some(serde_json::from_str(text).unwrap())))
            .boxed()
    };
    let ints = || int_value().prop_map(Value::from).boxed();
    let strs = || string_value().prop_map(Value::String).boxed();
    let mut arms: Vec<(u32, OpValue)> = match t {
        PathTy::Int => vec![
            (4, compare(number_value())),
            (1, with("in", list_of(ints(), true))),
            (1, with("in", list_of(ints(), false))),
            (1, exists()),
        ],
        PathTy::Num => vec![
            (4, compare(number_value())),
            (1, with("in", list_of(number_value(), true))),
            (1, with("in", list_of(number_value(), false))),
            (1, exists()),
        ],
        PathTy::Str => vec![
            (3, compare(strs())),
            (1, with("in", list_of(strs(), true))),
            (1, with("in", list_of(strs(), false))),
            (2, strings()),
            (1, regex()),
            (1, exists()),
        ],
        PathTy::Bool => vec![
            (3, compare(any::<bool>().prop_map(Value::Bool).boxed())),
            (1, exists()),
        ],
        PathTy::List => vec![(2, eq_ne(list_of(scalar(), true))), (1, exists())],
        PathTy::Obj => vec![(1, exists()), (1, eq_ne(Just(json!(null)).boxed()))],
        PathTy::Any => vec![
            (2, eq_ne(scalar())),
            (2, compare(number_value())),
            (1, compare(strs())),
            (1, with("in", list_of(scalar(), true))),
            (1, with("in", list_of(scalar(), false))),
            (1, strings()),
            (1, regex()),
            (1, exists()),
        ],
    };
    if tree_only {
        // A JSON-Schema check, or a comparison with an object (a YAML
        // mapping `value:`; the `when` syntax has no map literals).
        arms.push((2, schema()));
        if matches!(t, PathTy::Obj | PathTy::Any) {
            let object = prop::collection::vec((select(vec!["k", "k-1"]), scalar()), 0..3)
                .prop_map(|entries| {
                    Value::Object(
                        entries
                            .into_iter()
                            .map(|(k, v)| (k.to_owned(), v))
                            .collect(),
                    )
                })
                .boxed();
            arms.push((2, eq_ne(object.clone())));
            arms.push((1, with("in", list_of(object, true))));
        }
    }
    Union::new_weighted(arms).boxed()
}

/// A random condition tree; `matches` leaves and object values (which have
/// no `when` form) only if `tree_only`.
fn tree(tree_only: bool) -> BoxedStrategy<Tree> {
    let leaf = select(TREE_PATHS.to_vec())
        .prop_flat_map(move |(path, t)| {
            op_value(t, tree_only).prop_map(move |(op, value)| Tree::Leaf { path, op, value })
        })
        .boxed();
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            2 => prop::collection::vec(inner.clone(), 0..4).prop_map(Tree::All),
            2 => prop::collection::vec(inner.clone(), 0..4).prop_map(Tree::Any),
            1 => inner.prop_map(|t| Tree::Not(Box::new(t))),
        ]
    })
    .boxed()
}

impl Tree {
    /// The tree as YAML (a JSON flow mapping, which YAML reads as is).
    fn to_yaml(&self) -> Value {
        match self {
            Tree::All(items) => {
                json!({ "all": items.iter().map(Tree::to_yaml).collect::<Vec<_>>() })
            }
            Tree::Any(items) => {
                json!({ "any": items.iter().map(Tree::to_yaml).collect::<Vec<_>>() })
            }
            Tree::Not(inner) => json!({ "not": inner.to_yaml() }),
            Tree::Leaf { path, op, value } => {
                let mut m = Map::new();
                m.insert("path".into(), json!(path));
                m.insert("op".into(), json!(op));
                if let Some(v) = value {
                    m.insert("value".into(), v.clone());
                }
                Value::Object(m)
            }
        }
    }

    /// The `when` expression of the same meaning (`docs/src/semantics.md#condition-trees`); `None` if the
    /// tree has a leaf `when` cannot say: a `matches` leaf (a JSON-Schema
    /// check has no expression) or a string operator (its type guard has no
    /// spelling).
    fn to_when(&self) -> Option<String> {
        self.when_form().map(|w| w.text)
    }

    /// The `when` text written so that it parses to the IR the tree lowers
    /// to: each leaf guarded, `?:` links after an item that can fail, and a
    /// two-operand item spliced into a chain of its operator, as
    /// `tree_to_ir::join` does.
    fn when_form(&self) -> Option<WhenForm> {
        Some(match self {
            Tree::All(items) => join_when(items, true)?,
            Tree::Any(items) => join_when(items, false)?,
            Tree::Not(inner) => {
                let inner = inner.when_form()?;
                WhenForm {
                    text: format!("!({})", inner.text),
                    may_error: inner.may_error,
                    shape: Shape::Atom,
                }
            }
            Tree::Leaf { op: "matches", .. } => return None,
            Tree::Leaf { path, op, value } => {
                let v = match value {
                    Some(v) => literal(v)?,
                    None => String::new(),
                };
                let holds_null = match (*op, value) {
                    ("in", Some(Value::Array(items))) => items.contains(&Value::Null),
                    ("eq" | "ne", Some(v)) => v.is_null(),
                    _ => false,
                };
                let (text, pair) = leaf_when(path, op, &v, holds_null)?;
                WhenForm {
                    text,
                    may_error: matches!(*op, "gt" | "gte" | "lt" | "lte"),
                    shape: pair.map_or(Shape::Atom, Shape::Pair),
                }
            }
        })
    }
}

/// A tree's `when` text, whether it can be an error, and its top shape.
struct WhenForm {
    text: String,
    may_error: bool,
    shape: Shape,
}

/// The top of an expression's IR, as `tree_to_ir::join` tells chains.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// Not an `&&` or `||`.
    Atom,
    /// `x && y` (`true`) or `x || y` (`false`) of two atoms: spliced into a
    /// chain of its operator.
    Pair(bool),
    /// A longer chain of `&&` (`true`) or `||`.
    Chain(bool),
}

/// An `all` (`is_all`) or `any` list's text, linked as `tree_to_ir::join`
/// links it.
fn join_when(items: &[Tree], is_all: bool) -> Option<WhenForm> {
    let forms = items
        .iter()
        .map(Tree::when_form)
        .collect::<Option<Vec<_>>>()?;
    let mut forms = forms.into_iter();
    let Some(first) = forms.next() else {
        let text = if is_all { "true" } else { "false" };
        return Some(WhenForm {
            text: text.to_owned(),
            may_error: false,
            shape: Shape::Atom,
        });
    };
    let rest: Vec<WhenForm> = forms.collect();
    if rest.is_empty() {
        return Some(first);
    }
    let op = if is_all { "&&" } else { "||" };
    // A chain of this operator continues; anything else is one operand.
    let mut operands = match first.shape {
        Shape::Pair(and) if and == is_all => 2,
        Shape::Chain(and) if and == is_all => 3,
        _ => 1,
    };
    let mut text = if operands > 1 {
        first.text.clone()
    } else {
        format!("({})", first.text)
    };
    let (mut may_error, mut cond, mut last_atom) = (first.may_error, false, false);
    for item in rest {
        if may_error {
            text = if is_all {
                format!("({text}) ? ({}) : false", item.text)
            } else {
                format!("({text}) ? true : ({})", item.text)
            };
            cond = true;
        } else {
            let spliced = item.shape == Shape::Pair(is_all);
            if spliced {
                text = format!("{text} {op} {}", item.text);
                operands += 2;
            } else {
                text = format!("{text} {op} ({})", item.text);
                operands += 1;
            }
            last_atom = !spliced && item.shape == Shape::Atom;
        }
        may_error |= item.may_error;
    }
    let shape = if cond {
        Shape::Atom
    } else if operands == 2 && first.shape == Shape::Atom && last_atom {
        Shape::Pair(is_all)
    } else {
        Shape::Chain(is_all)
    };
    Some(WhenForm {
        text,
        may_error,
        shape,
    })
}

/// One hook of a random policy.
#[derive(Debug, Clone)]
struct HookSpec {
    builtin: bool,
    events: Vec<&'static str>,
    priority: i64,
    enabled: bool,
    /// Whether its action is collected (`observe`) rather than terminal.
    collected: bool,
    condition: Option<Tree>,
}

fn hook_spec(tree_only: bool) -> BoxedStrategy<HookSpec> {
    (
        prop::bool::weighted(0.3),
        select(vec![vec!["e1"], vec!["e2"], vec!["e1", "e2"], vec!["*"]]),
        0i64..3,
        prop::bool::weighted(0.9),
        prop::bool::weighted(0.3),
        prop::option::weighted(0.9, tree(tree_only)),
    )
        .prop_map(
            |(builtin, events, priority, enabled, collected, condition)| HookSpec {
                builtin,
                events,
                priority,
                enabled,
                collected,
                condition,
            },
        )
        .boxed()
}

/// The policy as a YAML file, with conditions as trees or as `when`s
/// (`None` if some tree has no `when` form).
fn policy_yaml(hooks: &[HookSpec], as_trees: bool) -> Option<String> {
    let mut layers = [String::new(), String::new()];
    for (i, h) in hooks.iter().enumerate() {
        let mut entry = format!(
            "  - id: h{i}\n    event: {}\n    priority: {}\n    enabled: {}\n    action: {{type: {}}}\n",
            json!(h.events),
            h.priority,
            h.enabled,
            if h.collected { "observe" } else { "abort" }
        );
        if let Some(t) = &h.condition {
            if as_trees {
                entry.push_str(&format!("    condition: {}\n", t.to_yaml()));
            } else {
                entry.push_str(&format!("    when: {}\n", json!(t.to_when()?)));
            }
        }
        layers[usize::from(h.builtin)].push_str(&entry);
    }
    let mut out = format!(
        "event_context_schema: {}\naction_types: {{observe: {{effect: collected, parameters: {{}}}}}}\n",
        schema_json()
    );
    for (key, body) in ["hooks", "builtin_hooks"].iter().zip(&layers) {
        if !body.is_empty() {
            out.push_str(&format!("{key}:\n{body}"));
        }
    }
    Some(out)
}

/// The ids of the hooks the VM finds matching, in evaluation order.
fn vm_matches(prog: &VerifiedProgram, event: &str, ctx: &Value) -> Vec<String> {
    let p = prog.program();
    let mut cache = PathCache::new(&p.paths, Source::Document(ctx));
    p.hooks_for(event)
        .iter()
        .filter(|&&h| matches!(eval_hook(prog, h, &mut cache, None), Val::Bool(true)))
        .filter_map(|&h| p.hooks.get(h as usize).map(|e| p.string(e.id).to_owned()))
        .collect()
}

fn ids(matches: Vec<runtime::Match<'_>>) -> Vec<String> {
    matches.into_iter().map(|m| m.hook.to_owned()).collect()
}

/// What an explained hook's outcome says its condition gave.
fn outcome_class(o: &Outcome) -> &'static str {
    match o {
        Outcome::Matched => "true",
        Outcome::NotMatched => "false",
        Outcome::Error { .. } => "error",
        Outcome::NotBool(_) => "non-bool",
        Outcome::Disabled => "disabled",
    }
}

/// What the reference evaluator says a hook's condition gives.
fn reference_class(
    policy: &CheckedPolicy,
    hook: &hookc::check::policy::Hook,
    ctx: &Value,
) -> &'static str {
    let Some(cond) = &hook.condition else {
        return "true";
    };
    let consts = reference::Constants::new(cond);
    match reference::eval_with(cond, policy.paths(), ctx, &consts) {
        Val::Bool(true) => "true",
        Val::Bool(false) => "false",
        Val::Error(_) => "error",
        _ => "non-bool",
    }
}

fn reference_matches(policy: &CheckedPolicy, event: &str, ctx: &Value) -> Vec<String> {
    reference::all_matches(policy, event, ctx)
        .into_iter()
        .map(|h| h.id.clone())
        .collect()
}

#[test]
fn trees_and_when_expressions_agree() {
    let hooks = prop_oneof![
        3 => prop::collection::vec(hook_spec(false), 1..6),
        1 => prop::collection::vec(hook_spec(true), 1..6),
    ];
    let strategy = (hooks, prop::collection::vec(context(), 6));
    let (policies, compiled, tree_only, evaluations) =
        (Cell::new(0), Cell::new(0), Cell::new(0), Cell::new(0));
    let result = runner(400, 11).run(&strategy, |(hooks, contexts)| {
        bump(&policies);
        let trees = policy_yaml(&hooks, true).unwrap();
        let whens = policy_yaml(&hooks, false);
        let a = compile(&[Input::new("trees.yaml", trees.clone())]);
        let b = whens
            .as_ref()
            .map(|w| compile(&[Input::new("whens.yaml", w.clone())]));
        let whens = whens.unwrap_or_default();
        let compiles = b.as_ref().map(|b| b.policy.is_some());
        if compiles.is_some_and(|c| c != a.policy.is_some()) {
            return Err(TestCaseError::fail(format!(
                "only one form compiles\n{trees}\n{:?}\n{whens}\n{:?}",
                a.diagnostics,
                b.map(|b| b.diagnostics)
            )));
        }
        let Some(pa) = a.policy else {
            return Ok(());
        };
        bump(&compiled);
        let pb = b.and_then(|b| b.policy);
        if pb.is_none() {
            bump(&tree_only);
        }
        if let Some(pb) = &pb {
            for (x, y) in pa.hooks().iter().zip(pb.hooks()) {
                let same = x.id == y.id
                    && match (&x.condition, &y.condition) {
                        (Some(c), Some(d)) => c.same_as(d),
                        (None, None) => true,
                        _ => false,
                    };
                if !same {
                    return Err(TestCaseError::fail(format!(
                        "hook {} / {}: not the same IR\n{trees}\n{whens}\n{:#?}\n{:#?}",
                        x.id, y.id, x.condition, y.condition
                    )));
                }
            }
        }
        let va = hookc_runtime::verify::verify(hookc::lower::lower(&pa)).unwrap();
        let vb = pb
            .as_ref()
            .map(|pb| hookc_runtime::verify::verify(hookc::lower::lower(pb)).unwrap());
        // The runtime library over the same sources, and over its own
        // artifact.
        let rt = hookc::compile::policy_from_sources(&[Input::new("trees.yaml", trees.clone())])
            .map_err(|e| TestCaseError::fail(format!("runtime: {e}")))?;
        let rt_loaded = runtime::Policy::from_artifact(&rt.to_artifact())
            .map_err(|e| TestCaseError::fail(format!("artifact: {e}")))?;
        let none = Overrides::default();
        for ctx in &contexts {
            // Read back from text, so that every route reads the same numbers.
            let text = ctx.to_string();
            let ctx: Value = serde_json::from_str(&text).unwrap();
            let ctx = &ctx;
            for event in ["e1", "e2", "e3"] {
                bump(&evaluations);
                let mut answers = vec![
                    ("reference, trees", reference_matches(&pa, event, ctx)),
                    ("VM, trees", vm_matches(&va, event, ctx)),
                    (
                        "runtime, all",
                        ids(rt.query(event, ctx).with_overrides(&none).all().unwrap()),
                    ),
                    (
                        "runtime, all, JSON text",
                        ids(rt.query(event, hookc_runtime::Context::json(text.as_bytes())).with_overrides(&none).all().unwrap()),
                    ),
                    (
                        "runtime, all, looked up",
                        ids(rt.query(event, hookc_runtime::Context::Lookup(&ValueLookup::new(ctx))).all().unwrap()),
                    ),
                ];
                if let (Some(pb), Some(vb)) = (&pb, &vb) {
                    answers.push(("reference, whens", reference_matches(pb, event, ctx)));
                    answers.push(("VM, whens", vm_matches(vb, event, ctx)));
                }
                let expected = answers[0].1.clone();
                let (ref_collected, ref_terminal) = reference::decision(&pa, event, ctx);
                let ref_collected: Vec<String> = ref_collected.iter().map(|h| h.id.clone()).collect();
                let ref_terminal = ref_terminal.map(|h| h.id.clone());
                let decisions = [
                    ("runtime", rt.evaluate(event, ctx).unwrap()),
                    (
                        "runtime, JSON text",
                        rt.query(event, hookc_runtime::Context::json(text.as_bytes())).decision().unwrap(),
                    ),
                    ("runtime from its artifact", rt_loaded.evaluate(event, ctx).unwrap()),
                    (
                        "runtime, looked up",
                        rt.query(event, hookc_runtime::Context::Lookup(&ValueLookup::new(ctx))).decision().unwrap(),
                    ),
                ];
                let decisions: Vec<(&str, Vec<String>, Option<String>)> = decisions
                    .into_iter()
                    .map(|(how, d)| (how, ids(d.collected), d.terminal.map(|m| m.hook.to_owned())))
                    .collect();
                let firsts = [
                    ("reference", reference::first_match(&pa, event, ctx).map(|h| h.id.clone())),
                    ("runtime", rt.evaluate(event, ctx).unwrap().terminal.map(|m| m.hook.to_owned())),
                    (
                        "runtime, JSON text",
                        rt.query(event, hookc_runtime::Context::json(text.as_bytes())).first()
                            .unwrap()
                            .map(|m| m.hook.to_owned()),
                    ),
                    (
                        "runtime from its artifact",
                        rt_loaded.evaluate(event, ctx).unwrap().terminal.map(|m| m.hook.to_owned()),
                    ),
                ];
                let trace = rt.query(event, ctx).with_overrides(&none).explain().unwrap();
                let outcomes: Vec<(String, &str)> = trace
                    .hooks
                    .iter()
                    .map(|h| (h.hook.clone(), outcome_class(&h.outcome)))
                    .collect();
                let reference_outcomes: Vec<(String, &str)> = pa
                    .hooks()
                    .iter()
                    .filter(|h| h.enabled && h.events.includes(event))
                    .map(|h| (h.id.clone(), reference_class(&pa, h, ctx)))
                    .collect();
                let winner = trace
                    .winner
                    .and_then(|i| trace.hooks.get(i))
                    .map(|h| h.hook.clone());
                let trace_collected: Vec<String> = trace
                    .collected
                    .iter()
                    .filter_map(|&i| trace.hooks.get(i))
                    .map(|h| h.hook.clone())
                    .collect();
                if answers.iter().any(|(_, got)| *got != expected)
                    || firsts.iter().any(|(_, got)| *got != ref_terminal)
                    || decisions.iter().any(|(_, c, t)| *c != ref_collected || *t != ref_terminal)
                    || winner != ref_terminal
                    || trace_collected != ref_collected
                    || outcomes != reference_outcomes
                {
                    return Err(TestCaseError::fail(format!(
                        "event {event}, context {ctx}: the evaluations disagree:\n  {answers:?}\n  first: {firsts:?}\n  decisions: {decisions:?}\n  reference: collected {ref_collected:?}, terminal {ref_terminal:?}\n  explain: {outcomes:?}, winner {winner:?}, collected {trace_collected:?}\n  reference: {reference_outcomes:?}\n{trees}\n{whens}"
                    )));
                }
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    println!(
        "trees vs whens: {} random policies, {} compiled ({} with `matches` schemas or object values: trees only), {} (event, context) evaluations agree",
        policies.get(),
        compiled.get(),
        tree_only.get(),
        evaluations.get()
    );
    assert!(compiled.get() * 10 >= policies.get() * 7);
}

/// A double in a context read from JSON text is the double its digits name,
/// so it equals the same digits written as a literal (which hookc's lexer
/// reads exactly). Regression: `serde_json` without its `float_roundtrip`
/// feature read some doubles one ULP off (`-1.493833152347211e+260` became
/// `-1.4938331523472111e+260`), found by the test above; hookc enables the
/// feature.
#[test]
fn doubles_read_from_json_text_equal_their_literals() {
    let schema = schema();
    for digits in [
        "-1.493833152347211e+260",
        "2.2250738585072014e-308",
        "0.1",
        "1.7976931348623157e308",
        "9007199254740993.0",
    ] {
        let compiled =
            compile_expr(&format!("d == {digits}"), &schema, ExprMode::Condition).unwrap();
        let ctx: Value = serde_json::from_str(&format!("{{\"d\": {digits}}}")).unwrap();
        let consts = reference::Constants::new(compiled.expr());
        let result = reference::eval_with(compiled.expr(), compiled.paths(), &ctx, &consts);
        assert!(
            matches!(result, Val::Bool(true)),
            "`d == {digits}` with d read from JSON text gives {} (d = {})",
            show(&result),
            ctx["d"]
        );
    }
}

/// A context behind `hookc_runtime::PathLookup` (as a host's objects would
/// be), answering from a `Value`; it fails the test if a path is asked for
/// twice in one evaluation.
struct ValueLookup<'v> {
    doc: &'v Value,
    asked: std::cell::RefCell<std::collections::HashSet<usize>>,
}

impl<'v> ValueLookup<'v> {
    fn new(doc: &'v Value) -> ValueLookup<'v> {
        ValueLookup {
            doc,
            asked: Default::default(),
        }
    }
}

impl hookc_runtime::PathLookup for ValueLookup<'_> {
    fn lookup(&self, index: usize, path: &hookc_runtime::bytecode::path::Path) -> Option<Value> {
        assert!(
            self.asked.borrow_mut().insert(index),
            "path {path} looked up twice"
        );
        hookc_runtime::internals::context::resolve(self.doc, path).cloned()
    }
}

const TEMPLATE_EXPRESSIONS: u32 = 300;

/// Expressions in templates: the same filled action from the runtime (via
/// the artifact) and from the reference evaluator.
#[test]
fn template_expressions_fill_alike() {
    let gen = Gen::new();
    let strategy = (
        expression(&gen),
        expression(&gen),
        prop::collection::vec(context(), CONTEXTS_PER_EXPRESSION),
    );
    let stats = Stats::default();
    let result = runner(TEMPLATE_EXPRESSIONS, 11).run(&strategy, |((a, _), (b, _), contexts)| {
        bump(&stats.generated);
        let text = |t: String| serde_json::to_string(&t).unwrap();
        let yaml = format!(
            "event_context_schema: {}\naction_types:\n  note:\n    parameters:\n      whole: {{}}\n      text: {{}}\n      fallback: {{}}\nhooks:\n  - id: h\n    event: e\n    action:\n      type: note\n      whole: {}\n      text: {}\n      fallback: {}\n",
            schema_json(),
            text(format!("${{{a}}}")),
            text(format!("a=${{{a}}}, b=${{{b}}}.")),
            text(format!("${{({a}) ?? ({b})}}")),
        );
        let c = compile(&[Input::new("t.yaml", yaml.as_str())]);
        let Some(checked) = c.policy.as_ref().filter(|_| !c.diagnostics.has_errors()) else {
            return Ok(());
        };
        bump(&stats.compiled);
        let bytes = hookc_runtime::artifact::encode(&hookc::lower::lower(checked));
        let policy = runtime::Policy::from_artifact(&bytes)
            .map_err(|e| TestCaseError::fail(format!("{a} / {b}: {e}")))?;
        let hook = &checked.hooks()[0];
        for ctx in &contexts {
            bump(&stats.pairs);
            let want = reference::fill_action(checked, &hook.action, ctx).ok();
            let got = policy
                .evaluate("e", ctx)
                .ok()
                .and_then(|d| d.terminal)
                .map(|m| m.action);
            if got != want {
                return Err(TestCaseError::fail(format!(
                    "templates filled differently\n  a: {a}\n  b: {b}\n  context: {ctx}\n  reference: {want:?}\n  runtime: {got:?}"
                )));
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (generated, compiled) = (stats.generated.get(), stats.compiled.get());
    println!(
        "template expressions: {generated} generated, {compiled} compiled, {} pairs",
        stats.pairs.get()
    );
    assert!(
        compiled * 100 >= generated * 50,
        "only {compiled} of {generated} template pairs compile"
    );
}
