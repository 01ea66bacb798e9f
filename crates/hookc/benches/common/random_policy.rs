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

use hookc::compile::Input;
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
