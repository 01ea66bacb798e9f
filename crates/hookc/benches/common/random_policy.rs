//! Random policies of every shape, for compile scaling (issue 24, item 5):
//! shared by `benches/compile_scale.rs` and `tests/linear_compile.rs`
//! (included there by `#[path]`).
//!
//! A seeded generator, not hand-designed shapes: `when` expressions built as
//! random trees of `&&`, `||` and `!` over leaves of every kind (string
//! equality and inequality, `in` lists, `startsWith`, `endsWith`,
//! `contains`, `matches`, numeric comparisons, booleans), YAML condition
//! trees (`all`/`any`/`not` over `path`/`op`/`value` leaves), constants
//! drawn from a range a quarter the policy's size (so many hooks share
//! them), hooks that repeat an earlier hook's condition, both default
//! layers (`builtin_hooks:` and `hooks:`), random priorities, five events,
//! and actions with `${path}` templates. Every generated policy compiles
//! without errors.
//!
//! [`shapes`] draws the same shapes as single-event policies for the
//! evaluation benches (`benches/shapes.rs`, issue 24, items 2 and 3), with
//! contexts whose answers the reference evaluator has checked.

#![allow(
    dead_code,
    reason = "included by benches, tests and examples that each use a part of it"
)]

use hookc::compile::Input;
use serde_json::{Map, Value};
use std::fmt::Write as _;

/// A small seeded generator (mulberry32).
pub struct Rng(u32);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u32) -> Rng {
        Rng(seed)
    }

    /// The next 32 random bits.
    pub fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_add(0x6D2B_79F5);
        let mut t = self.0;
        t = (t ^ (t >> 15)).wrapping_mul(t | 1);
        t ^= t.wrapping_add((t ^ (t >> 7)).wrapping_mul(t | 61));
        t ^ (t >> 14)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() as usize) % n.max(1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// The events hooks are on (the built-in schema's, so none is a typo).
const EVENTS: [&str; 5] = [
    "error",
    "limit",
    "context_window_pressure",
    "before_step",
    "after_step",
];

/// The string paths leaves test.
const STRINGS: [&str; 5] = [
    "error.code",
    "error.message",
    "classification.category",
    "limit_code",
    "event.directive",
];

/// The number paths leaves test.
const NUMBERS: [&str; 5] = [
    "cost.spend",
    "limit_value",
    "pressure_ratio",
    "tokens_used",
    "turn_number",
];

/// One random `when` leaf; `k` bounds the constants.
fn when_leaf(rng: &mut Rng, k: usize) -> String {
    let s = STRINGS[rng.below(STRINGS.len())];
    let n = NUMBERS[rng.below(NUMBERS.len())];
    let c = rng.below(k);
    match rng.below(11) {
        0 | 1 => format!("{s} == 'v{c}'"),
        2 => format!("{s} != 'v{c}'"),
        3 => format!("{s} in ['v{c}', 'w{c}', 'x{}']", rng.below(k)),
        4 => format!("{s}.startsWith('p{c}')"),
        5 => format!("{s}.endsWith('s{c}')"),
        6 => format!("{s}.contains('m{c}')"),
        7 => format!("{s}.matches('^r{c}[0-9]+$')"),
        8 => {
            let op = [">", ">=", "<", "<="][rng.below(4)];
            format!("{n} {op} {}", c % 1000)
        }
        9 => format!("{n} > {}.5 && {n} < {}", c % 500, c % 500 + 50),
        _ => format!("classification.retryable == {}", rng.chance(50)),
    }
}

/// A random `when` expression of at most `depth` levels of operators.
fn when_expr(rng: &mut Rng, k: usize, depth: usize) -> String {
    if depth == 0 || rng.chance(35) {
        return when_leaf(rng, k);
    }
    match rng.below(5) {
        0 | 1 => format!(
            "{} && {}",
            when_expr(rng, k, depth - 1),
            when_expr(rng, k, depth - 1)
        ),
        2 | 3 => format!(
            "({} || {})",
            when_expr(rng, k, depth - 1),
            when_expr(rng, k, depth - 1)
        ),
        _ => format!("!({})", when_expr(rng, k, depth - 1)),
    }
}

/// One random condition-tree leaf, as YAML flow.
fn tree_leaf(rng: &mut Rng, k: usize) -> String {
    let s = STRINGS[rng.below(STRINGS.len())];
    let n = NUMBERS[rng.below(NUMBERS.len())];
    let c = rng.below(k);
    match rng.below(8) {
        0 | 1 => format!("{{path: {s}, op: eq, value: v{c}}}"),
        2 => format!("{{path: {s}, op: in, value: [v{c}, w{c}]}}"),
        3 => format!("{{path: {s}, op: starts_with, value: p{c}}}"),
        4 => format!("{{path: {s}, op: regex, value: '^r{c}.*'}}"),
        5 => format!("{{path: {n}, op: gt, value: {}}}", c % 1000),
        6 => format!("{{path: {n}, op: lte, value: {}}}", c % 1000),
        _ => format!("{{path: {s}, op: exists}}"),
    }
}

/// A random condition tree of at most `depth` levels of combinators.
fn tree(rng: &mut Rng, k: usize, depth: usize) -> String {
    if depth == 0 || rng.chance(30) {
        return tree_leaf(rng, k);
    }
    match rng.below(5) {
        0..=2 => {
            let key = if rng.chance(60) { "all" } else { "any" };
            let items: Vec<String> = (0..2 + rng.below(3))
                .map(|_| tree(rng, k, depth - 1))
                .collect();
            format!("{{{key}: [{}]}}", items.join(", "))
        }
        _ => format!("{{not: {}}}", tree(rng, k, depth - 1)),
    }
}

/// A random action: terminal or not, sometimes with templates.
fn action(rng: &mut Rng, i: usize) -> String {
    match rng.below(5) {
        0 => "{type: abort}".to_owned(),
        1 => "{type: retry, max_attempts: 3}".to_owned(),
        2 => "{type: escalate, target: user_approval}".to_owned(),
        _ => {
            let s = STRINGS[rng.below(STRINGS.len())];
            let n = NUMBERS[rng.below(NUMBERS.len())];
            format!(
                "{{type: call_directive, directive: d{i}, parameters: {{a: \"${{{s}}}\", b: \"at ${{{n}}} of ${{event.thread_id}}\"}}}}"
            )
        }
    }
}

/// Hooks per generated file (a YAML document holds at most
/// `MAX_YAML_NODES` nodes).
pub const HOOKS_PER_FILE: usize = 2_000;

/// A policy of `n` random hooks from `seed`, as YAML files of at most
/// [`HOOKS_PER_FILE`] hooks, each with both default layers.
pub fn random_inputs(n: usize, seed: u32) -> Vec<Input> {
    let mut rng = Rng::new(seed);
    let k = (n / 4).max(4);
    let mut conditions: Vec<String> = Vec::with_capacity(n);
    let mut files = Vec::new();
    let mut start = 0;
    while start < n {
        let end = (start + HOOKS_PER_FILE).min(n);
        let text = random_file(&mut rng, start..end, k, &mut conditions);
        files.push(Input::new(format!("random_{n}_{}.yaml", files.len()), text));
        start = end;
    }
    files
}

/// One file of random hooks `ids` (constants below `k`; `conditions`: every
/// earlier hook's, to repeat).
fn random_file(
    rng: &mut Rng,
    ids: std::ops::Range<usize>,
    k: usize,
    conditions: &mut Vec<String>,
) -> String {
    let mut builtin = String::from("builtin_hooks:\n");
    let mut hooks = String::from("hooks:\n");
    for i in ids {
        let condition = if !conditions.is_empty() && rng.chance(5) {
            conditions[rng.below(conditions.len())].clone()
        } else if rng.chance(30) {
            format!("condition: {}", tree(rng, k, 3))
        } else {
            format!("when: {:?}", when_expr(rng, k, 3))
        };
        let event = EVENTS[rng.below(EVENTS.len())];
        let priority = rng.below(10);
        let out = if rng.chance(20) {
            &mut builtin
        } else {
            &mut hooks
        };
        let act = action(rng, i);
        let _ = writeln!(
            out,
            "  - {{id: h{i}, event: {event}, priority: {priority}, {condition}, action: {act}}}"
        );
        conditions.push(condition);
    }
    builtin.push_str(&hooks);
    builtin
}

// ---------------------------------------------------------------------------
// Random single-event policies for evaluation benches (issue 24, items 2, 3)

/// The event every hook of a [`shapes`] policy listens to.
pub const SHAPES_EVENT: &str = "error";

/// A random policy of one event and contexts whose answers are known.
#[derive(Debug, Clone)]
pub struct Shapes {
    /// Hooks on [`SHAPES_EVENT`].
    pub n: usize,
    /// The generator's seed.
    pub seed: u32,
    /// The policy, one YAML file.
    pub inputs: Vec<Input>,
    /// `none`, `last`, then `random-0`, `random-1`, ...
    pub contexts: Vec<ShapesContext>,
}

/// One context of a [`Shapes`] policy.
#[derive(Debug, Clone)]
pub struct ShapesContext {
    /// `none`, `last` or `random-<i>`.
    pub name: String,
    /// The context: a value for every path the generator reads.
    pub context: Value,
    /// The hook the reference evaluator picks (`None`: no hook matches).
    pub expect: Option<String>,
}

/// A random value for a string path: the shapes of the constants the
/// leaves test (`v`/`w`/`x` equality and membership constants, a
/// `p…m…s` string that `startsWith`, `contains` and `endsWith` leaves can
/// each hit, an `r<c><digits>` string for the regexes), constants below `k`.
fn string_value(rng: &mut Rng, k: usize) -> String {
    let c = rng.below(k);
    match rng.below(5) {
        0 => format!("v{c}"),
        1 => format!("w{c}"),
        2 => format!("x{c}"),
        3 => format!("p{c}-m{}-s{}", rng.below(k), rng.below(k)),
        _ => format!("r{c}{}", rng.below(100)),
    }
}

/// A random value for a number path, in the range the comparisons use
/// (0 to 1,000), an int or a double.
fn number_value(rng: &mut Rng) -> Value {
    let n = rng.below(1_000);
    if rng.chance(50) {
        Value::from(n)
    } else {
        Value::from(n as f64 + 0.5)
    }
}

/// Sets the dotted `path` of `ctx` to `v`, making the objects on the way.
fn set_path(ctx: &mut Map<String, Value>, path: &str, v: Value) {
    match path.split_once('.') {
        None => {
            ctx.insert(path.to_owned(), v);
        }
        Some((head, rest)) => {
            let inner = ctx
                .entry(head.to_owned())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(m) = inner {
                set_path(m, rest, v);
            }
        }
    }
}

/// A random context: a value for every path the leaves read
/// ([`STRINGS`], [`NUMBERS`], `classification.retryable`), drawn from the
/// constants' own ranges, so that most hooks are nearly matched, and the
/// `event.thread_id` the action templates read.
pub fn random_context(rng: &mut Rng, k: usize) -> Value {
    let mut ctx = Map::new();
    for s in STRINGS {
        set_path(&mut ctx, s, Value::from(string_value(rng, k)));
    }
    for n in NUMBERS {
        set_path(&mut ctx, n, number_value(rng));
    }
    set_path(
        &mut ctx,
        "classification.retryable",
        Value::from(rng.chance(50)),
    );
    set_path(
        &mut ctx,
        "event.thread_id",
        Value::from("thr_01HQ47ZB2D4F6H8K0M2P4R6T"),
    );
    Value::Object(ctx)
}

/// One random hook line of a [`shapes`] policy: hook `i`, a condition tree
/// (30%) or a `when` expression as [`random_inputs`] draws them, a
/// terminal action (with templates in two cases of five); priority 1 to
/// 9, or 0 for the last hook, which the file also lists last, so that it
/// is last in evaluation order.
fn shapes_hook(rng: &mut Rng, k: usize, i: usize, n: usize) -> String {
    let condition = if rng.chance(30) {
        format!("condition: {}", tree(rng, k, 3))
    } else {
        format!("when: {:?}", when_expr(rng, k, 3))
    };
    let priority = if i + 1 == n { 0 } else { 1 + rng.below(9) };
    let act = action(rng, i);
    format!("  - {{id: h{i}, event: {SHAPES_EVENT}, priority: {priority}, {condition}, action: {act}}}\n")
}

/// The checked IR of one generated file (panics on a compile error: the
/// generator writes only valid hooks).
fn checked_file(name: &str, text: &str) -> hookc::check::policy::CheckedPolicy {
    let c = hookc::compile::compile(&[Input::new(name, text.to_owned())]);
    match c.policy {
        Some(p) if !c.diagnostics.has_errors() => p,
        _ => panic!(
            "generated policy `{name}` does not compile: {:#?}",
            c.diagnostics
        ),
    }
}

/// Rounds of redrawing before [`shapes`] gives up (each redraws only the
/// hooks that matched a context they must not match).
const MAX_ROUNDS: usize = 10_000;

/// A random policy of `n` hooks on [`SHAPES_EVENT`] from `seed`, with the
/// contexts `none` (matches no hook), `last` (whose first match is the
/// last hook in evaluation order) and `randoms` random ones (whatever they
/// match).
///
/// Hooks are [`random_inputs`]' shapes (constants below `max(n / 4, 4)`),
/// in one layer, with random priorities. `none` and `last` are random
/// contexts drawn first; then every hook but the last is redrawn while it
/// matches either of them, and the last hook is redrawn until it matches
/// `last` and not `none`, each match decided by the tree-walking reference
/// evaluator (`hookc::testing::reference::hook_matches`). So the policy
/// holds no hook that is true on almost every context (a lone `!=`, an
/// `exists`), which a policy with a no-match context cannot hold either.
/// The random contexts are drawn after; each context's answer is then
/// `reference::first_match` over the whole policy.
pub fn shapes(n: usize, seed: u32, randoms: usize) -> Shapes {
    assert!(n > 0, "a shapes policy has at least one hook");
    let mut rng = Rng::new(seed);
    let k = (n / 4).max(4);
    let none = random_context(&mut rng, k);
    let last = random_context(&mut rng, k);
    let mut hooks: Vec<String> = (0..n).map(|i| shapes_hook(&mut rng, k, i, n)).collect();
    let mut todo: Vec<usize> = (0..n).collect();
    for round in 0.. {
        assert!(
            round < MAX_ROUNDS,
            "shapes({n}, {seed}): hooks still match contexts they must not after {MAX_ROUNDS} rounds"
        );
        let mut text = String::from("hooks:\n");
        for &i in &todo {
            text.push_str(&hooks[i]);
        }
        let ir = checked_file("redraw.yaml", &text);
        let mut again = Vec::new();
        for hook in ir.hooks() {
            let Some(i) = hook
                .id
                .strip_prefix('h')
                .and_then(|i| i.parse::<usize>().ok())
            else {
                panic!("generated hook id `{}`", hook.id);
            };
            let hits =
                |ctx: &Value| hookc::testing::reference::hook_matches(&ir, hook, SHAPES_EVENT, ctx);
            let wrong = if i + 1 == n {
                hits(&none) || !hits(&last)
            } else {
                hits(&none) || hits(&last)
            };
            if wrong {
                again.push(i);
            }
        }
        if again.is_empty() {
            break;
        }
        again.sort_unstable();
        for &i in &again {
            hooks[i] = shapes_hook(&mut rng, k, i, n);
        }
        todo = again;
    }
    let mut text =
        format!("# generated by benches/common/random_policy.rs shapes({n}, {seed})\nhooks:\n");
    for h in &hooks {
        text.push_str(h);
    }
    let name = format!("shapes_{n}_{seed}.yaml");
    let ir = checked_file(&name, &text);
    let last_id = format!("h{}", n - 1);
    assert_eq!(
        ir.hooks().last().map(|h| h.id.as_str()),
        Some(last_id.as_str()),
        "shapes({n}, {seed}): the last hook is not last in evaluation order"
    );
    let mut named = vec![("none".to_owned(), none), ("last".to_owned(), last)];
    for r in 0..randoms {
        named.push((format!("random-{r}"), random_context(&mut rng, k)));
    }
    let contexts = named
        .into_iter()
        .map(|(name, context)| {
            let expect = hookc::testing::reference::first_match(&ir, SHAPES_EVENT, &context)
                .map(|h| h.id.clone());
            ShapesContext {
                name,
                context,
                expect,
            }
        })
        .collect::<Vec<_>>();
    for (c, want) in contexts.iter().zip([None, Some(last_id)]) {
        assert_eq!(
            c.expect, want,
            "shapes({n}, {seed}): context `{}` picks {:?} in the reference evaluator",
            c.name, c.expect
        );
    }
    Shapes {
        n,
        seed,
        inputs: vec![Input::new(name, text)],
        contexts,
    }
}
