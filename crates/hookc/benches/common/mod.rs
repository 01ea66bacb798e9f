//! Shared by the bench targets: the checked-in inputs of `benches/data/`, the
//! deterministic scale-policy generator, the hand-written seed-set function
//! (the baseline the VM must beat) and a tree-walking action filler that
//! completes the reference evaluator's answer.
//!
//! Everything here runs during bench setup, never inside a timed closure,
//! except [`seed_by_hand`] and [`reference_evaluate`], which are baselines
//! and are timed on purpose.

#![allow(
    dead_code,
    reason = "each bench target includes this module and uses a different part of it"
)]

pub mod random_policy;

use hookc::check::policy::CheckedPolicy;
use hookc::compile::{compile, Input};
use hookc_runtime::Policy;
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use std::path::PathBuf;

/// `benches/data`.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/data")
}

/// A file of `benches/data`, as text.
pub fn read(rel: &str) -> String {
    let path = data_dir().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One evaluation input: an event, its context (as a value and as the
/// compact JSON text an agent runtime would send), and the hook that must win.
#[derive(Debug, Clone)]
pub struct Case {
    /// Bench id component, e.g. `error_rate_limited`.
    pub name: String,
    /// The event name.
    pub event: String,
    /// The context.
    pub context: Value,
    /// `context` as compact JSON text (keys in file order).
    pub text: String,
    /// The id of the hook that must win, or `None` for "no hook matches".
    pub expect: Option<String>,
}

impl Case {
    fn from_file(name: &str, rel: &str) -> Case {
        let file: Value = serde_json::from_str(&read(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let event = file["event"]
            .as_str()
            .unwrap_or_else(|| panic!("{rel}: no `event`"))
            .to_owned();
        let expect = match &file["expect"] {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => panic!("{rel}: `expect` must be a hook id or null, not {other}"),
        };
        let context = file["context"].clone();
        assert!(context.is_object(), "{rel}: `context` must be an object");
        Case::new(name, &event, context, expect)
    }

    /// A case of `context` on `event`, its text the context's compact JSON.
    pub fn new(name: &str, event: &str, context: Value, expect: Option<String>) -> Case {
        let text = serde_json::to_string(&context).unwrap();
        Case {
            name: name.to_owned(),
            event: event.to_owned(),
            context,
            text,
            expect,
        }
    }
}

/// Scalars in a JSON value (array elements counted one by one).
pub fn leaf_count(v: &Value) -> usize {
    match v {
        Value::Object(m) => m.values().map(leaf_count).sum(),
        Value::Array(items) => items.iter().map(leaf_count).sum(),
        _ => 1,
    }
}

// ---------------------------------------------------------------------------
// The seed set

/// The seed000 example's three builtin hooks and four directive hooks, one
/// file. Its directive hooks have no ids, so they are
/// `policy.yaml#directive[0]` … `[3]`.
pub fn seed_inputs() -> Vec<Input> {
    vec![Input::new("policy.yaml", read("seed/policy.yaml"))]
}

/// Every seed context (`benches/data/seed/contexts/*.json`), by file name.
pub fn seed_cases() -> Vec<Case> {
    let dir = data_dir().join("seed/contexts");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|f| f.strip_suffix(".json").map(str::to_owned))
        .collect();
    names.sort();
    let cases: Vec<Case> = names
        .iter()
        .map(|n| Case::from_file(n, &format!("seed/contexts/{n}.json")))
        .collect();
    for case in &cases {
        let leaves = leaf_count(&case.context);
        assert!(
            (25..=40).contains(&leaves),
            "seed context `{}` has {leaves} leaf fields; the bench inputs keep 25 to 40",
            case.name
        );
    }
    cases
}

/// The regex-heavy input: policy and context.
pub fn regex_heavy() -> (Vec<Input>, Case) {
    (
        vec![Input::new("policy.yaml", read("regex_heavy/policy.yaml"))],
        Case::from_file("regex_heavy", "regex_heavy/context.json"),
    )
}

/// The template-heavy input: policy and context.
pub fn template_heavy() -> (Vec<Input>, Case) {
    (
        vec![Input::new(
            "policy.yaml",
            read("template_heavy/policy.yaml"),
        )],
        Case::from_file("template_heavy", "template_heavy/context.json"),
    )
}

/// What a careful person writes for the seed set by hand against a
/// `serde_json::Value`: the same hooks in the same order (for each event the
/// directive hooks, then the builtin one), deciding first
/// ([`seed_hand_decide`]), then building the winner's complete action
/// (defaults included) with the same template filling (a whole `${path}`
/// keeps the value, `null` when absent). `get` chains, no precomputation
/// across calls.
pub fn seed_by_hand(event: &str, ctx: &Value) -> Option<(&'static str, Map<String, Value>)> {
    let id = seed_hand_decide(event, ctx)?;
    Some((id, seed_hand_action(id, ctx)))
}

fn at<'a>(v: &'a Value, a: &str, b: &str) -> Option<&'a Value> {
    v.get(a)?.get(b)
}

/// The decision alone, by hand: the winning hook's id.
pub fn seed_hand_decide(event: &str, ctx: &Value) -> Option<&'static str> {
    match event {
        "error" => match at(ctx, "classification", "category").and_then(Value::as_str)? {
            "rate_limited" => Some("policy.yaml#directive[0]"),
            "permanent" => Some("policy.yaml#directive[3]"),
            "transient" => Some("default_transient_retry"),
            _ => None,
        },
        "limit" => {
            let spend_exceeded =
                ctx.get("limit_code").and_then(Value::as_str) == Some("spend_exceeded");
            if spend_exceeded
                && at(ctx, "cost", "spend")
                    .and_then(Value::as_f64)
                    .is_some_and(|spend| spend > 10.0)
            {
                Some("policy.yaml#directive[1]")
            } else if at(ctx, "event", "limit_code").is_some_and(|v| !v.is_null()) {
                Some("default_limit_escalation")
            } else {
                None
            }
        }
        "context_window_pressure" => {
            let over = |v: Option<&Value>, limit: f64| {
                v.and_then(Value::as_f64).is_some_and(|r| r > limit)
            };
            if over(ctx.get("pressure_ratio"), 0.85) {
                Some("policy.yaml#directive[2]")
            } else if over(at(ctx, "event", "pressure_ratio"), 0.8) {
                Some("default_compaction")
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The winning hook's action, by hand.
fn seed_hand_action(id: &str, ctx: &Value) -> Map<String, Value> {
    fn action(kind: &str) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("type".to_owned(), Value::String(kind.to_owned()));
        m
    }
    let field =
        |v: Option<&Value>, k: &str| v.and_then(|v| v.get(k)).cloned().unwrap_or(Value::Null);
    match id {
        "policy.yaml#directive[0]" => {
            let headers = ctx.get("error").and_then(|e| e.get("headers"));
            let mut params = Map::new();
            params.insert("retry_after".to_owned(), field(headers, "retry-after"));
            let mut a = action("call_directive");
            a.insert("directive".to_owned(), "my_app/custom_backoff".into());
            a.insert("parameters".to_owned(), Value::Object(params));
            a.insert("inherit_token".to_owned(), Value::Bool(true));
            a
        }
        "policy.yaml#directive[3]" => {
            let error = ctx.get("error");
            let mut payload = Map::new();
            payload.insert("error_type".to_owned(), field(error, "type"));
            payload.insert("message".to_owned(), field(error, "message"));
            let mut a = action("emit_event");
            a.insert("event_type".to_owned(), "my_app/error_notification".into());
            a.insert("payload".to_owned(), Value::Object(payload));
            a
        }
        "default_transient_retry" => {
            let mut a = action("retry");
            a.insert("max_attempts".to_owned(), 3.into());
            a.insert("backoff_policy".to_owned(), "inherit".into());
            a
        }
        "policy.yaml#directive[1]" | "default_limit_escalation" => {
            let timeout = if id == "default_limit_escalation" {
                3600
            } else {
                7200
            };
            let mut a = action("escalate");
            a.insert("target".to_owned(), "user_approval".into());
            a.insert("timeout_seconds".to_owned(), timeout.into());
            a
        }
        "policy.yaml#directive[2]" => {
            let mut a = action("call_directive");
            a.insert("directive".to_owned(), "my_app/smart_summarizer".into());
            a.insert("parameters".to_owned(), Value::Object(Map::new()));
            a.insert("inherit_token".to_owned(), Value::Bool(true));
            a
        }
        _ => {
            // "default_compaction"
            let ev = ctx.get("event");
            let mut params = Map::new();
            for k in ["pressure_ratio", "tokens_used", "max_tokens"] {
                params.insert(k.to_owned(), field(ev, k));
            }
            let mut a = action("call_directive");
            a.insert(
                "directive".to_owned(),
                "rye/agent/threads/default_compaction".into(),
            );
            a.insert("parameters".to_owned(), Value::Object(params));
            a.insert("inherit_token".to_owned(), Value::Bool(true));
            a
        }
    }
}

// ---------------------------------------------------------------------------
// The reference evaluator, completed with action filling

/// The tree-walking reference evaluator's answer completed to what
/// `Policy::evaluate` returns: [`hookc::testing::reference::first_match`] over the
/// checked IR, then the winner's action filled and checked by
/// [`hookc::testing::reference::fill_action`] (`None` for the action when it
/// fails its parameter checks).
pub fn reference_evaluate<'p>(
    policy: &'p CheckedPolicy,
    event: &str,
    ctx: &Value,
) -> Option<(&'p str, Option<Map<String, Value>>)> {
    let hook = hookc::testing::reference::first_match(policy, event, ctx)?;
    let action = hookc::testing::reference::fill_action(policy, &hook.action, ctx).ok();
    Some((hook.id.as_str(), action))
}

// ---------------------------------------------------------------------------
// Compiling and checking an input before timing it

/// The checked IR of some sources (panics on compile errors).
pub fn checked(inputs: &[Input]) -> CheckedPolicy {
    let c = compile(inputs);
    if c.diagnostics.has_errors() {
        panic!("bench input does not compile: {:#?}", c.diagnostics);
    }
    c.policy.unwrap()
}

/// The runtime policy of some sources (panics on compile errors).
pub fn runtime(inputs: &[Input]) -> Policy {
    hookc::compile::policy_from_sources(inputs)
        .unwrap_or_else(|e| panic!("bench input does not compile: {e}"))
}

/// Times `policy` on `case` as `<id>/value` (`Policy::evaluate` on the
/// `Value`) and `<id>/json` (`Query::first` on the JSON text).
pub fn bench_value_and_json(c: &mut criterion::Criterion, id: &str, policy: &Policy, case: &Case) {
    use std::hint::black_box;
    let (event, ctx, text) = (case.event.as_str(), &case.context, case.text.as_str());
    c.bench_function(&format!("{id}/value"), |b| {
        b.iter(|| policy.evaluate(black_box(event), black_box(ctx)))
    });
    c.bench_function(&format!("{id}/json"), |b| {
        b.iter(|| {
            policy
                .query(
                    black_box(event),
                    hookc_runtime::Context::json(black_box(text.as_bytes())),
                )
                .first()
        })
    });
}

/// Asserts, before anything is timed, that hookc (from the value and from
/// JSON text) and the reference evaluator pick `case.expect` and fill the
/// same action. Returns that action.
pub fn assert_case(policy: &Policy, ir: &CheckedPolicy, case: &Case) -> Option<Map<String, Value>> {
    let name = &case.name;
    let from_value = policy
        .evaluate(&case.event, &case.context)
        .ok()
        .and_then(|d| d.terminal);
    let got = from_value.as_ref().map(|m| m.hook);
    assert_eq!(
        got,
        case.expect.as_deref(),
        "context `{name}`: hookc chose {got:?}, the input expects {:?}",
        case.expect
    );
    let from_text = policy
        .query(
            &case.event,
            hookc_runtime::Context::json(case.text.as_bytes()),
        )
        .first()
        .unwrap_or_else(|e| panic!("context `{name}`: {e}"));
    assert_eq!(
        from_text, from_value,
        "context `{name}`: evaluate_json and evaluate disagree"
    );
    let reference = reference_evaluate(ir, &case.event, &case.context);
    assert_eq!(
        reference.as_ref().map(|(h, _)| *h),
        case.expect.as_deref(),
        "context `{name}`: the reference evaluator disagrees with the input's expectation"
    );
    assert_eq!(
        reference.as_ref().and_then(|(_, a)| a.as_ref()),
        from_value.as_ref().map(|m| &m.action),
        "context `{name}`: the reference evaluator fills a different action"
    );
    from_value.map(|m| m.action)
}

// ---------------------------------------------------------------------------
// Scale policies

/// The event every scale hook listens to.
pub const SCALE_EVENT: &str = "error";

/// The sizes the benches run.
pub const SCALE_SIZES: [usize; 4] = [10, 100, 1_000, 10_000];

const CATEGORIES: [&str; 7] = [
    "rate_limited",
    "overloaded",
    "transient",
    "timeout",
    "quota_exceeded",
    "upstream_5xx",
    "network",
];

/// Hook `i`'s id.
pub fn scale_id(i: usize) -> String {
    format!("svc{i:05}_handler")
}

/// Hook `i`'s category: distinct per hook (the equality a dispatcher could index).
pub fn scale_category(i: usize) -> String {
    format!("{}.svc{i:05}", CATEGORIES[i % CATEGORIES.len()])
}

/// Hook `i`'s message prefix.
pub fn scale_prefix(i: usize) -> String {
    format!("[svc-{i:05}] ")
}

/// Hook `i`'s spend threshold, 0.0 to 19.5.
pub fn scale_spend(i: usize) -> String {
    format!("{:.1}", (i % 40) as f64 * 0.5)
}

/// Error codes of the `in` lists (hook `i`'s list adds its own, `E_SVC<i>`).
const CODES: [&str; 8] = [
    "E_UPSTREAM_TIMEOUT",
    "E_RATE_LIMIT",
    "E_OVERLOADED",
    "ECONNRESET",
    "ECONNREFUSED",
    "ETIMEDOUT",
    "E_QUOTA",
    "E_BAD_GATEWAY",
];

/// A hook file of `n` hooks on [`SCALE_EVENT`], deterministic. Hook `i` is
/// an `all` of `classification.category == <cat_i>`,
/// `error.message.startsWith(<prefix_i>)` and `cost.spend > <x_i>`; every
/// 7th also an `any` (retryable, or its own error code), every 11th a regex
/// on the message, every 13th `error.code in [9 codes]`. Priorities descend
/// (`n - i`), so evaluation order is hook 0 … hook `n-1`: the "last" context
/// ([`scale_case`]) matches hook `n-1` only, after every other hook failed.
pub fn scale_policy(n: usize) -> String {
    let mut s = String::with_capacity(n * 420);
    writeln!(s, "# generated by benches/common/mod.rs scale_policy({n})").unwrap();
    s.push_str("hooks:\n");
    for i in 0..n {
        writeln!(s, "  - id: {}", scale_id(i)).unwrap();
        writeln!(s, "    event: {SCALE_EVENT}").unwrap();
        writeln!(s, "    priority: {}", n - i).unwrap();
        s.push_str("    condition:\n      all:\n");
        writeln!(
            s,
            "        - {{path: classification.category, op: eq, value: \"{}\"}}",
            scale_category(i)
        )
        .unwrap();
        writeln!(
            s,
            "        - {{path: error.message, op: starts_with, value: \"{}\"}}",
            scale_prefix(i)
        )
        .unwrap();
        writeln!(
            s,
            "        - {{path: cost.spend, op: gt, value: {}}}",
            scale_spend(i)
        )
        .unwrap();
        if i % 7 == 0 {
            s.push_str("        - any:\n");
            s.push_str("            - {path: classification.retryable, op: eq, value: true}\n");
            writeln!(
                s,
                "            - {{path: error.code, op: eq, value: \"E_SVC{i}\"}}"
            )
            .unwrap();
        }
        if i % 11 == 0 {
            writeln!(
                s,
                "        - {{path: error.message, op: regex, value: '(?:timeout|deadline exceeded) after \\d+ms \\(attempt [1-{}]\\)'}}",
                1 + i % 9
            )
            .unwrap();
        }
        if i % 13 == 0 {
            let mut codes: Vec<String> = CODES.iter().map(|c| format!("\"{c}\"")).collect();
            codes.push(format!("\"E_SVC{i}\""));
            writeln!(
                s,
                "        - {{path: error.code, op: in, value: [{}]}}",
                codes.join(", ")
            )
            .unwrap();
        }
        let action = match i % 4 {
            0 => format!("{{type: retry, max_attempts: {}, backoff_policy: exponential}}", 1 + i % 5),
            1 => format!("{{type: escalate, target: parent_notification, timeout_seconds: {}}}", 600 + i),
            2 => format!(
                "{{type: call_directive, directive: \"svc{i:05}/backoff\", parameters: {{retry_after: \"${{error.headers['retry-after']}}\"}}}}"
            ),
            _ => "{type: suspend, suspend_reason: error}".to_owned(),
        };
        writeln!(s, "    action: {action}").unwrap();
    }
    s
}

/// Which scale context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScaleCase {
    /// Matches hook `n-1` only, the last in evaluation order.
    Last,
    /// A category no hook has: matches nothing.
    None,
}

impl ScaleCase {
    /// Bench id component.
    pub fn name(self) -> &'static str {
        match self {
            ScaleCase::Last => "last",
            ScaleCase::None => "none",
        }
    }
}

/// The scale context for `n` hooks: a realistic error context (30 leaf
/// fields) whose category, message and code satisfy hook `n-1` (every
/// optional conjunct included) or, for [`ScaleCase::None`], no hook.
pub fn scale_case(n: usize, which: ScaleCase) -> Case {
    scale_context("", n, which, None)
}

/// The context of [`scale_case`] for the policy of `family` (`""` for
/// [`scale_policy`], `"mixed/"` for [`mixed_policy`]), with `error.shard`
/// when `shard` is given.
fn scale_context(family: &str, n: usize, which: ScaleCase, shard: Option<Value>) -> Case {
    let last = n - 1;
    let (category, prefix, expect) = match which {
        ScaleCase::Last => (
            scale_category(last),
            scale_prefix(last),
            Some(scale_id(last)),
        ),
        ScaleCase::None => ("authentication".to_owned(), "[auth] ".to_owned(), None),
    };
    let mut context = json!({
        "event": {
            "type": "error",
            "timestamp": "2025-03-14T15:07:22.418Z",
            "thread_id": "thr_01HQ47ZB2D4F6H8K0M2P4R6T",
            "directive": "my_app/order_fulfillment"
        },
        "error": {
            "type": "UpstreamTimeoutError",
            "message": format!("{prefix}upstream timeout after 3000ms (attempt 1) while calling inventory-service"),
            "code": "E_UPSTREAM_TIMEOUT",
            "status": 504,
            "headers": {
                "retry-after": "12",
                "x-request-id": "req_7e9a1c3b5d7f9a1c3e5b7d9f1a3c5e7b",
                "server": "envoy"
            }
        },
        "classification": {
            "category": category,
            "retryable": true,
            "confidence": 0.91,
            "retry_policy": {"max_attempts": 4, "backoff": "exponential", "base_delay_ms": 250, "max_delay_ms": 10000}
        },
        "cost": {"spend": 42.5, "currency": "USD", "budget": 100.0, "input_tokens": 3_120_554, "output_tokens": 118_402},
        "tokens_used": 54_210,
        "max_tokens": 128_000,
        "turn_number": 29,
        "model": "gpt-4o-2024-08-06",
        "provider": "openai",
        "tool_call": {
            "id": "call_Ab12Cd34Ef56Gh78Ij90Kl",
            "name": "reserve_stock",
            "arguments": "{\"sku\": \"SKU-118-BLK\", \"qty\": 3}"
        }
    });
    if let (Some(shard), Some(error)) = (shard, context["error"].as_object_mut()) {
        error.insert("shard".into(), shard);
    }
    Case::new(
        &format!("{family}{n}/{}", which.name()),
        SCALE_EVENT,
        context,
        expect,
    )
}

/// Which test discriminates mixed hook `i` ([`mixed_policy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MixedShape {
    /// `classification.category in [<cat_i>, <cat_i>.alt] && spend > x`.
    Membership,
    /// `spend > x && category == <cat_i>`, or with a `startsWith` between
    /// them (the equality third) for even `i`.
    Later,
    /// `error.shard == i && classification.retryable == true` (a number and
    /// a bool).
    Number,
    /// `error.message.startsWith(<prefix_i>) && spend > x`.
    Prefix,
    /// `category == <cat_i> && message.startsWith(<prefix_i>) && spend > x`,
    /// the uniform set's shape.
    Equality,
}

/// Mixed hook `i`'s shape: every 7th hook a membership, every 5th an
/// equality in second or third place, every 3rd a number and a bool, every
/// 11th a prefix only (in that precedence); the rest lead with equality.
pub fn mixed_shape(i: usize) -> MixedShape {
    if i % 7 == 6 {
        MixedShape::Membership
    } else if i % 5 == 4 {
        MixedShape::Later
    } else if i % 3 == 2 {
        MixedShape::Number
    } else if i % 11 == 10 {
        MixedShape::Prefix
    } else {
        MixedShape::Equality
    }
}

/// A hook file of `n` hooks on [`SCALE_EVENT`] whose discriminating tests
/// are interleaved shapes ([`mixed_shape`]): a dispatcher that only indexes
/// runs of leading string equalities finds no long run. Evaluation order is
/// hook 0 … hook `n-1`, as in [`scale_policy`].
pub fn mixed_policy(n: usize) -> String {
    let mut s = String::with_capacity(n * 200);
    writeln!(s, "# generated by benches/common/mod.rs mixed_policy({n})").unwrap();
    s.push_str("hooks:\n");
    for i in 0..n {
        let (cat, prefix, spend) = (scale_category(i), scale_prefix(i), scale_spend(i));
        let when = match mixed_shape(i) {
            MixedShape::Membership => format!(
                "classification.category in ['{cat}', '{cat}.alt'] && cost.spend > {spend}"
            ),
            MixedShape::Later if i % 2 == 0 => format!(
                "cost.spend > {spend} && error.message.startsWith('{prefix}') && classification.category == '{cat}'"
            ),
            MixedShape::Later => {
                format!("cost.spend > {spend} && classification.category == '{cat}'")
            }
            MixedShape::Number => {
                format!("error.shard == {i} && classification.retryable == true")
            }
            MixedShape::Prefix => {
                format!("error.message.startsWith('{prefix}') && cost.spend > {spend}")
            }
            MixedShape::Equality => format!(
                "classification.category == '{cat}' && error.message.startsWith('{prefix}') && cost.spend > {spend}"
            ),
        };
        writeln!(
            s,
            "  - {{id: {}, event: {SCALE_EVENT}, priority: {}, when: {when:?}, action: {{type: suspend, suspend_reason: error}}}}",
            scale_id(i),
            n - i
        )
        .unwrap();
    }
    s
}

/// The mixed policy of `n` hooks as an input.
pub fn mixed_inputs(n: usize) -> Vec<Input> {
    vec![Input::new(format!("mixed_{n}.yaml"), mixed_policy(n))]
}

/// The context for [`mixed_policy`]`(n)`: [`scale_case`]'s, plus
/// `error.shard` (`n-1`, or one no hook tests).
pub fn mixed_case(n: usize, which: ScaleCase) -> Case {
    let shard = match which {
        ScaleCase::Last => n - 1,
        ScaleCase::None => 1_000_000,
    };
    scale_context("mixed/", n, which, Some(json!(shard)))
}

/// The scale policy of `n` hooks as an input.
pub fn scale_inputs(n: usize) -> Vec<Input> {
    vec![Input::new(format!("scale_{n}.yaml"), scale_policy(n))]
}

// ---------------------------------------------------------------------------
// Seed-000 condition trees at scale

/// Which condition seed-tree hook `i` has ([`seed_tree_policy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedTreeShape {
    /// `{path: classification.category, op: eq, value: cat_<i>}`.
    Eq,
    /// `{path: classification.category, op: in, value: [cat_<i>, alias_<i>]}`.
    In,
    /// `{all: [{path: cost.spend, op: gte, value: 0}, <Eq>]}`: the equality
    /// after an item that can be an error, so lowered as `a ? b : false`.
    All,
}

/// Seed-tree hook `i`'s shape: every 7th (`i % 7 == 3`) a membership (when
/// `with_in`), every 5th (`i % 5 == 1`) an `all`, the rest an equality.
pub fn seed_tree_shape(i: usize, with_in: bool) -> SeedTreeShape {
    if with_in && i % 7 == 3 {
        SeedTreeShape::In
    } else if i % 5 == 1 {
        SeedTreeShape::All
    } else {
        SeedTreeShape::Eq
    }
}

/// A hook file of `n` hooks on [`SCALE_EVENT`] written as seed 000 writes
/// them, YAML condition trees (`docs/src/semantics.md#condition-trees`),
/// each testing `classification.category == cat_<i>` in its shape
/// ([`seed_tree_shape`]); all of priority 0, so evaluation order is hook 0
/// … hook `n-1`. The context of [`seed_tree_context`] matches hook `n-1`.
pub fn seed_tree_policy(n: usize, with_in: bool) -> String {
    let mut s = String::with_capacity(n * 160);
    writeln!(
        s,
        "# generated by benches/common/mod.rs seed_tree_policy({n}, {with_in})"
    )
    .unwrap();
    s.push_str("hooks:\n");
    let eq = |i: usize| format!("{{path: classification.category, op: eq, value: cat_{i}}}");
    for i in 0..n {
        let condition = match seed_tree_shape(i, with_in) {
            SeedTreeShape::Eq => eq(i),
            SeedTreeShape::In => {
                format!("{{path: classification.category, op: in, value: [cat_{i}, alias_{i}]}}")
            }
            SeedTreeShape::All => {
                format!(
                    "{{all: [{{path: cost.spend, op: gte, value: 0}}, {}]}}",
                    eq(i)
                )
            }
        };
        writeln!(
            s,
            "  - {{id: h{i}, event: {SCALE_EVENT}, priority: 0, condition: {condition}, action: {{type: retry, max_attempts: 3}}}}"
        )
        .unwrap();
    }
    s
}

/// The seed-tree policy as an input.
pub fn seed_tree_inputs(n: usize, with_in: bool) -> Vec<Input> {
    vec![Input::new(
        format!("seed_tree_{n}.yaml"),
        seed_tree_policy(n, with_in),
    )]
}

/// The context that matches seed-tree hook `n-1` only.
pub fn seed_tree_context(n: usize) -> Value {
    json!({"classification": {"category": format!("cat_{}", n - 1)}, "cost": {"spend": 1.0}})
}
