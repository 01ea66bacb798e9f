//! Every bound of `hookc_runtime::limits`, gone one past (and, where cheap, met
//! exactly): each gives a clear error with the documented code and a message
//! that names the limit, or, for contexts, a clean non-match. Also the
//! evaluation cost bound, tested by counting instructions (never by timing):
//! one evaluation of one hook executes at most
//! `code length × (1 + MAX_MACRO_ITERATIONS)` instructions.
//!
//! Bounds that only an artifact can exceed (the compiler never writes them)
//! are tested where the artifact is built by hand, in the unit tests of
//! `src/artifact/tests.rs` and `src/verify.rs`; the guide's limits table (`docs/src/reference/limits.md`)
//! names each test.

use hookc::compile::{compile, Input};
use hookc::diag::{Code, Diagnostic};
use hookc_runtime::artifact::{decode, ArtifactError};
use hookc_runtime::internals::context::{PathCache, Source};
use hookc_runtime::internals::value::{EvalError, Val};
use hookc_runtime::internals::vm::{eval_hook, ErrorSite};
use hookc_runtime::limits::*;
use hookc_runtime::verify::{verify, VerifiedProgram};
use hookc_runtime::{LoadError, Outcome, Overrides, Policy};
use serde_json::{json, Value};
use std::fmt::Display;
use std::time::{Duration, Instant};

// ---- helpers ------------------------------------------------------------------

/// Every error of compiling one file.
fn errors(name: &str, text: impl Into<String>) -> Vec<Diagnostic> {
    let c = compile(&[Input::new(name, text)]);
    c.diagnostics
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect()
}

/// The first error of compiling one file.
fn first_error(name: &str, text: impl Into<String>) -> Diagnostic {
    errors(name, text)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("`{name}` compiled without errors"))
}

/// Asserts that one file compiles without errors.
fn clean(name: &str, text: impl Into<String>) {
    let errs = errors(name, text);
    assert!(errs.is_empty(), "{:?}", errs.first().map(|d| &d.message));
}

/// Asserts the code and that the message names the limit's value.
fn assert_limit(d: &Diagnostic, code: Code, limit: impl Display) {
    assert_eq!(d.code, code, "{}", d.message);
    let limit = limit.to_string();
    assert!(
        d.message.contains(&limit),
        "the message does not name the limit {limit}: {}",
        d.message
    );
}

/// A hook file with one hook of event `e` whose condition is `expr`.
fn when(expr: &str) -> String {
    format!(
        "hooks:\n  - id: h\n    event: e\n    when: {}\n    action: {{type: abort}}\n",
        serde_json::to_string(expr).unwrap()
    )
}

/// A hook file with one hook of event `e` whose condition is the YAML flow
/// text `condition`.
fn condition(condition: &str) -> String {
    format!("hooks:\n  - id: h\n    event: e\n    condition: {condition}\n    action: {{type: abort}}\n")
}

/// A hook file with one hook of event `e` and the YAML flow `action`.
fn action(action: &str) -> String {
    format!("hooks:\n  - id: h\n    event: e\n    action: {action}\n")
}

/// Runs `f` on a thread with a 2 MiB stack (the default of a spawned
/// thread), so that deep input must be handled without deep recursion.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// `items` comma-separated integers `0, 1, ...`.
fn ints(items: usize) -> String {
    (0..items)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The verified program of one hook file.
fn program(text: &str) -> VerifiedProgram {
    let c = compile(&[Input::new("p.yaml", text)]);
    let first = c.diagnostics.iter().find(|d| d.is_error());
    assert!(first.is_none(), "{:?}", first.map(|d| &d.message));
    verify(hookc::lower::lower(c.policy.as_ref().unwrap())).unwrap()
}

/// Hook 0's value on `ctx`, its instruction count and its code length.
fn traced<'a>(prog: &'a VerifiedProgram, ctx: &'a Value) -> (Val<'a>, u64, u64) {
    let mut cache = PathCache::new(&prog.program().paths, Source::Document(ctx));
    let mut site = ErrorSite::default();
    let v = eval_hook(prog, 0, &mut cache, Some(&mut site));
    let (start, end) = prog.program().hooks[0].code;
    (v, site.steps, u64::from(end - start))
}

/// The bound of the cost contract: `L × (1 + MAX_MACRO_ITERATIONS)`.
fn step_bound(code_len: u64) -> u64 {
    code_len * (1 + MAX_MACRO_ITERATIONS as u64)
}

// ---- policy sources -------------------------------------------------------------

#[test]
fn input_file_size() {
    for name in ["big.yaml", "big.xml"] {
        let d = first_error(name, " ".repeat(MAX_INPUT_BYTES + 1));
        assert_limit(&d, Code::TooLarge, MAX_INPUT_BYTES);
    }
    // (A file exactly at the limit is read: `hookc` and the front ends
    // compare with `>`; reading 16 MiB takes seconds in a debug build.)
}

#[test]
fn expression_nesting() {
    // A leaf in 127 parentheses is 128 levels: the limit.
    let nest = |n: usize| format!("{}true{}", "(".repeat(n), ")".repeat(n));
    clean("p.yaml", when(&nest(MAX_EXPR_DEPTH - 1)));
    let d = first_error("p.yaml", when(&nest(MAX_EXPR_DEPTH)));
    assert_limit(&d, Code::TooDeep, MAX_EXPR_DEPTH);
    // A run of prefix operators is nesting too.
    clean(
        "p.yaml",
        when(&format!("{}true", "!".repeat(MAX_EXPR_DEPTH - 2))),
    );
    let d = first_error(
        "p.yaml",
        when(&format!("{}true", "!".repeat(MAX_EXPR_DEPTH))),
    );
    assert_limit(&d, Code::TooDeep, MAX_EXPR_DEPTH);
}

#[test]
fn a_hundred_thousand_nested_nots_in_a_when() {
    let results = on_small_stack(|| {
        let n = 100_000;
        [
            format!("{}true{}", "!(".repeat(n), ")".repeat(n)),
            format!("{}true", "!".repeat(n)),
            format!("{}true", "not ".repeat(n)),
        ]
        .iter()
        .map(|expr| {
            let t = Instant::now();
            let d = first_error("p.yaml", when(expr));
            (d, t.elapsed())
        })
        .collect::<Vec<_>>()
    });
    for (d, took) in results {
        assert_limit(&d, Code::TooDeep, MAX_EXPR_DEPTH);
        assert!(took < Duration::from_secs(5), "{took:?}");
    }
}

#[test]
fn yaml_nesting() {
    // `not:` maps under the root, `hooks`, the hook and `condition`: 124 of
    // them and the leaf make the document 128 levels deep.
    let nots = |n: usize| {
        condition(&format!(
            "{}{{path: a, op: exists}}{}",
            "{not: ".repeat(n),
            "}".repeat(n)
        ))
    };
    clean("p.yaml", nots(MAX_DOC_DEPTH - 4));
    let d = first_error("p.yaml", nots(MAX_DOC_DEPTH - 3));
    assert_limit(&d, Code::TooDeep, MAX_DOC_DEPTH);
    // 100,000 deep, in flow style (`{not: {not: ...}}`) and in block style
    // (`- - - ... x`): an error, quickly, on a small stack.
    let results = on_small_stack(move || {
        let block = format!("hooks:\n  {}x\n", "- ".repeat(100_000));
        [nots(100_000), block]
            .into_iter()
            .map(|text| {
                let t = Instant::now();
                (first_error("p.yaml", text), t.elapsed())
            })
            .collect::<Vec<_>>()
    });
    for (d, took) in &results {
        assert_limit(d, Code::TooDeep, MAX_DOC_DEPTH);
        assert!(*took < Duration::from_secs(5), "{took:?}");
    }
}

#[test]
fn xml_nesting() {
    let nest = |n: usize| format!("{}{}", "<a>".repeat(n), "</a>".repeat(n));
    clean("p.xml", nest(MAX_DOC_DEPTH));
    let d = first_error("p.xml", nest(MAX_DOC_DEPTH + 1));
    assert_limit(&d, Code::TooDeep, MAX_DOC_DEPTH);
    let (d, took) = on_small_stack(move || {
        let t = Instant::now();
        let text = format!("<directive>{}</directive>", nest(100_000));
        (first_error("p.xml", text), t.elapsed())
    });
    assert_limit(&d, Code::TooDeep, MAX_DOC_DEPTH);
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[test]
fn yaml_alias_bomb() {
    // "Billion laughs": nine levels of nine aliases, 9^9 nodes.
    let mut text = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let p = i - 1;
        text.push_str(&format!(
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    let t = Instant::now();
    let d = first_error("bomb.yaml", text);
    assert_limit(&d, Code::TooLarge, MAX_DOC_NODES);
    assert!(d.message.contains("alias"), "{}", d.message);
    assert!(t.elapsed() < Duration::from_secs(2));
}

#[test]
fn yaml_node_count() {
    // The root list, then copies of a list of 999 scalars (1,000 nodes
    // each): the anchored one, `copies - 1` aliases of it, and `extra`
    // scalars.
    let doc = |copies: usize, extra: usize| {
        let list = format!("&a [{}]", vec!["0"; 999].join(","));
        let mut items = vec![list];
        items.extend(std::iter::repeat_n("*a".to_owned(), copies - 1));
        items.extend(std::iter::repeat_n("0".to_owned(), extra));
        format!("[{}]", items.join(","))
    };
    // 1 + 999 × 1,000 + 999 = MAX_DOC_NODES nodes: not too large (the
    // document is not a hook file, which is another error).
    let at = errors("nodes.yaml", doc(999, 999));
    assert!(at.iter().all(|d| d.code != Code::TooLarge), "{at:?}");
    // 1 + 1,000 × 1,000 = MAX_DOC_NODES + 1.
    let d = first_error("nodes.yaml", doc(1000, 0));
    assert_limit(&d, Code::TooLarge, MAX_DOC_NODES);
}

/// `n` hooks as directive XML (the cheapest front end for many hooks: a
/// 100,001-hook YAML file takes several seconds in a debug build).
fn xml_hooks(n: usize) -> String {
    let mut x = String::from("<directive><hooks>");
    for _ in 0..n {
        x.push_str("<hook event=\"e\"><abort/></hook>");
    }
    x.push_str("</hooks></directive>");
    x
}

#[test]
fn hook_count_in_one_file() {
    let d = first_error("many.xml", xml_hooks(MAX_HOOKS + 1));
    assert_limit(&d, Code::TooLarge, MAX_HOOKS);
}

#[test]
fn hook_count_across_files() {
    let half = MAX_HOOKS / 2;
    let c = compile(&[
        Input::new("a.xml", xml_hooks(half)),
        Input::new("b.xml", xml_hooks(MAX_HOOKS - half + 1)),
    ]);
    let d = c.diagnostics.iter().find(|d| d.is_error()).unwrap();
    assert_limit(d, Code::TooLarge, MAX_HOOKS);
}

#[test]
fn string_literal_length() {
    let s = |n: usize| "a".repeat(n);
    // In an expression.
    clean("p.yaml", when(&format!("x == '{}'", s(MAX_STRING_BYTES))));
    let d = first_error(
        "p.yaml",
        when(&format!("x == '{}'", s(MAX_STRING_BYTES + 1))),
    );
    assert_limit(&d, Code::TooLarge, MAX_STRING_BYTES);
    // In a condition leaf's value, and inside a list there.
    clean(
        "p.yaml",
        condition(&format!(
            "{{path: x, op: eq, value: {}}}",
            s(MAX_STRING_BYTES)
        )),
    );
    for value in [
        s(MAX_STRING_BYTES + 1),
        format!("[a, {}]", s(MAX_STRING_BYTES + 1)),
    ] {
        let d = first_error(
            "p.yaml",
            condition(&format!("{{path: x, op: eq, value: {value}}}")),
        );
        assert_limit(&d, Code::TooLarge, MAX_STRING_BYTES);
        assert_eq!(d.node_path.as_deref(), Some("hooks[0].condition.value"));
    }
    // In an action parameter (YAML and XML), and as an object key in one.
    clean(
        "p.yaml",
        action(&format!(
            "{{type: fail, error_message: {}}}",
            s(MAX_STRING_BYTES)
        )),
    );
    for text in [
        action(&format!(
            "{{type: fail, error_message: {}}}",
            s(MAX_STRING_BYTES + 1)
        )),
        action(&format!(
            "{{type: emit_event, event_type: x, payload: {{{}: 1}}}}",
            s(MAX_STRING_BYTES + 1)
        )),
    ] {
        let d = first_error("p.yaml", text);
        assert_limit(&d, Code::TooLarge, MAX_STRING_BYTES);
    }
    let xml = format!(
        "<directive><hooks><hook event=\"e\"><fail error_message=\"{}\"/></hook></hooks></directive>",
        s(MAX_STRING_BYTES + 1)
    );
    assert_limit(&first_error("p.xml", xml), Code::TooLarge, MAX_STRING_BYTES);
    // In an action type's default.
    let def = format!(
        "action_types:\n  note:\n    description: d\n    parameters:\n      text: {{type: string, default: {}}}\n",
        s(MAX_STRING_BYTES + 1)
    );
    assert_limit(
        &first_error("t.yaml", def),
        Code::TooLarge,
        MAX_STRING_BYTES,
    );
}

#[test]
fn list_literal_length() {
    // In an expression.
    clean("p.yaml", when(&format!("x in [{}]", ints(MAX_LIST_ITEMS))));
    let d = first_error(
        "p.yaml",
        when(&format!("x in [{}]", ints(MAX_LIST_ITEMS + 1))),
    );
    assert_limit(&d, Code::TooLarge, MAX_LIST_ITEMS);
    // In a condition leaf's value.
    clean(
        "p.yaml",
        condition(&format!(
            "{{path: x, op: in, value: [{}]}}",
            ints(MAX_LIST_ITEMS)
        )),
    );
    let d = first_error(
        "p.yaml",
        condition(&format!(
            "{{path: x, op: in, value: [{}]}}",
            ints(MAX_LIST_ITEMS + 1)
        )),
    );
    assert_limit(&d, Code::TooLarge, MAX_LIST_ITEMS);
    // In an action parameter.
    let d = first_error(
        "p.yaml",
        action(&format!(
            "{{type: emit_event, event_type: x, payload: {{items: [{}]}}}}",
            ints(MAX_LIST_ITEMS + 1)
        )),
    );
    assert_limit(&d, Code::TooLarge, MAX_LIST_ITEMS);
    assert_eq!(d.node_path.as_deref(), Some("hooks[0].action.payload"));
}

#[test]
fn regex_compiled_size() {
    // The smallest `[a-z]{n}` over the size limit, found by bisection (the
    // exact `n` depends on the `regex` crate's compiler).
    let over = |n: usize| hookc_runtime::verify::compile_regex(&format!("[a-z]{{{n}}}")).is_err();
    let (mut lo, mut hi) = (1, 1 << 20);
    assert!(over(hi));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if over(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let n = lo;
    // Just past the limit: it compiles with twice the room.
    let pattern = format!("[a-z]{{{n}}}");
    assert!(regex::RegexBuilder::new(&pattern)
        .size_limit(2 * MAX_REGEX_SIZE)
        .build()
        .is_ok());
    // Through the whole pipeline: `matches()` and `op: regex`.
    let d = first_error("p.yaml", when(&format!("x.matches('{pattern}')")));
    assert_limit(&d, Code::BadRegex, MAX_REGEX_SIZE);
    let d = first_error(
        "p.yaml",
        condition(&format!("{{path: x, op: regex, value: '{pattern}'}}")),
    );
    assert_limit(&d, Code::BadRegex, MAX_REGEX_SIZE);
    clean("p.yaml", when(&format!("x.matches('[a-z]{{{}}}')", n - 1)));
}

#[test]
fn regex_nesting() {
    let nest = |n: u32| {
        let n = n as usize;
        format!("{}a{}", "(".repeat(n), ")".repeat(n))
    };
    clean(
        "p.yaml",
        when(&format!("x.matches('{}')", nest(MAX_REGEX_NESTING))),
    );
    let d = first_error(
        "p.yaml",
        when(&format!("x.matches('{}')", nest(MAX_REGEX_NESTING + 1))),
    );
    assert_limit(&d, Code::BadRegex, MAX_REGEX_NESTING);
}

// ---- evaluation -----------------------------------------------------------------

#[test]
fn regex_backtracking_steps() {
    use hookc_runtime::internals::value::PolicyRegex;
    // A nested repetition around a look-ahead backtracks exponentially in
    // the run of `a`s before the `b`: the shortest run past the step
    // limit, found by bisection (the exact length depends on
    // `fancy-regex`'s step counting).
    const PATTERN: &str = r"^((?=a)a+)+$";
    let re = PolicyRegex::parse(PATTERN).unwrap();
    assert!(re.is_backtracking());
    let text = |n: usize| format!("{}b", "a".repeat(n));
    let over = |n: usize| match re.is_match(&text(n)) {
        Ok(found) => {
            assert!(!found);
            false
        }
        Err(e) => {
            assert_eq!(e, EvalError::RegexStepLimit);
            true
        }
    };
    let (mut lo, mut hi) = (1, 64);
    assert!(over(hi));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if over(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let n = lo;
    // Through the whole pipeline: one `a` fewer answers (no match), the
    // shortest run past the limit is the error value, and explain says so.
    let policy = hookc::compile::policy_from_sources(&[Input::new(
        "p.yaml",
        when(&format!("x.matches(r'{PATTERN}')")),
    )])
    .unwrap();
    let under = json!({"x": text(n - 1)});
    let trace = policy.query("e", &under).explain().unwrap();
    assert!(
        matches!(trace.hooks[0].outcome, Outcome::NotMatched),
        "{:?}",
        trace.hooks[0].outcome
    );
    let past = json!({"x": text(n)});
    assert!(policy.evaluate("e", &past).unwrap().terminal.is_none());
    let trace = policy.query("e", &past).explain().unwrap();
    assert!(
        matches!(
            &trace.hooks[0].outcome,
            Outcome::Error {
                error: EvalError::RegexStepLimit,
                ..
            }
        ),
        "{:?}",
        trace.hooks[0].outcome
    );
}

#[test]
fn macro_iterations() {
    let policy =
        hookc::compile::policy_from_sources(&[Input::new("p.yaml", when("l.all(x, x >= 0)"))])
            .unwrap();
    // Exactly the budget: every item is tested.
    let at = json!({"l": vec![1; MAX_MACRO_ITERATIONS]});
    assert_eq!(
        policy.evaluate("e", &at).unwrap().terminal.map(|m| m.hook),
        Some("h")
    );
    // One more: the macro is an error value, so no match, and explain says why.
    let past = json!({"l": vec![1; MAX_MACRO_ITERATIONS + 1]});
    assert!(policy.evaluate("e", &past).unwrap().terminal.is_none());
    let trace = policy
        .query("e", &past)
        .with_overrides(&Overrides::default())
        .explain()
        .unwrap();
    assert!(
        matches!(
            &trace.hooks[0].outcome,
            Outcome::Error { error: EvalError::IterationLimit, at: Some(at) } if at == "in a list macro"
        ),
        "{:?}",
        trace.hooks[0].outcome
    );
}

#[test]
fn a_huge_context_list_under_a_macro() {
    let policy =
        hookc::compile::policy_from_sources(&[Input::new("p.yaml", when("l.exists(x, x == -1)"))])
            .unwrap();
    let text = format!(r#"{{"l": [{}]}}"#, ints(200_000));
    assert!(policy
        .query("e", hookc_runtime::Context::json(text.as_bytes()))
        .first()
        .unwrap()
        .is_none());
    let trace = policy
        .query("e", hookc_runtime::Context::json(text.as_bytes()))
        .with_overrides(&Overrides::default())
        .explain()
        .unwrap();
    assert!(
        matches!(
            trace.hooks[0].outcome,
            Outcome::Error {
                error: EvalError::IterationLimit,
                ..
            }
        ),
        "{:?}",
        trace.hooks[0].outcome
    );
    assert!(trace.to_text().contains("iteration"), "{}", trace.to_text());
    // Object keys count too.
    let policy = hookc::compile::policy_from_sources(&[Input::new(
        "p.yaml",
        when("o.exists(k, k == 'none')"),
    )])
    .unwrap();
    let keys: serde_json::Map<String, Value> = (0..=MAX_MACRO_ITERATIONS)
        .map(|i| (i.to_string(), json!(1)))
        .collect();
    let trace = policy
        .query("e", &json!({ "o": keys }))
        .with_overrides(&Overrides::default())
        .explain()
        .unwrap();
    assert!(matches!(
        trace.hooks[0].outcome,
        Outcome::Error {
            error: EvalError::IterationLimit,
            ..
        }
    ));
}

#[test]
fn context_nesting() {
    let reads_a =
        hookc::compile::policy_from_sources(&[Input::new("p.yaml", when("size(a) >= 0"))]).unwrap();
    let reads_below_a =
        hookc::compile::policy_from_sources(&[Input::new("p.yaml", when("a.x == 1 || has(b)"))])
            .unwrap();
    let reads_b =
        hookc::compile::policy_from_sources(&[Input::new("p.yaml", when("has(b)"))]).unwrap();
    // `{"a": [[...]], "b": 1}`: the root object and `levels - 1` arrays.
    let ctx = |levels: usize| {
        let n = levels - 1;
        format!(r#"{{"a": {}{}, "b": 1}}"#, "[".repeat(n), "]".repeat(n))
    };
    // Exactly the limit: built and read.
    let at = ctx(MAX_CONTEXT_DEPTH);
    assert_eq!(
        reads_a
            .query("e", hookc_runtime::Context::json(at.as_bytes()))
            .first()
            .unwrap()
            .map(|m| m.hook),
        Some("h")
    );
    // One past, where the policy builds the value: a clean context error.
    let past = ctx(MAX_CONTEXT_DEPTH + 1);
    let e = reads_a
        .query("e", hookc_runtime::Context::json(past.as_bytes()))
        .first()
        .unwrap_err();
    assert!(e.to_string().contains("recursion limit"), "{e}");
    // 100,000 deep, as JSON text, on a small stack.
    let results = on_small_stack(move || {
        let deep = ctx(100_000);
        (
            reads_a
                .query("e", hookc_runtime::Context::json(deep.as_bytes()))
                .first()
                .map(|m| m.is_some())
                .map_err(|e| e.to_string()),
            reads_below_a
                .query("e", hookc_runtime::Context::json(deep.as_bytes()))
                .first()
                .map(|m| m.is_some())
                .map_err(|e| e.to_string()),
            reads_b
                .query("e", hookc_runtime::Context::json(deep.as_bytes()))
                .first()
                .map(|m| m.is_some())
                .map_err(|e| e.to_string()),
        )
    });
    // Reading the deep value, a field below it, or only a field beside it:
    // a context error, not a crash. The text is not JSON that
    // `serde_json::from_slice::<Value>` reads either, and the extractor
    // accepts exactly what it accepts (parts no path reads are parsed, not
    // built, under the same recursion limit).
    for r in [&results.0, &results.1, &results.2] {
        assert!(
            r.as_ref().is_err_and(|e| e.contains("recursion limit")),
            "{r:?}"
        );
    }
    assert!(serde_json::from_str::<serde_json::Value>(&ctx(100_000)).is_err());
}

// ---- artifacts --------------------------------------------------------------------

fn artifact() -> Vec<u8> {
    hookc::compile::policy_from_sources(&[Input::new("p.yaml", when("x == 1"))])
        .unwrap()
        .to_artifact()
}

#[test]
fn artifact_size() {
    // One byte past the limit (zeroed pages are not touched): rejected
    // before the checksum is computed.
    let mut big = vec![0u8; MAX_ARTIFACT_BYTES + 1];
    let bytes = artifact();
    big[..24].copy_from_slice(&bytes[..24]);
    let e = decode(&big).unwrap_err();
    assert_eq!(
        e,
        ArtifactError::TooLarge {
            len: MAX_ARTIFACT_BYTES as u64 + 1,
            limit: MAX_ARTIFACT_BYTES as u64
        }
    );
    assert!(
        e.to_string().contains(&MAX_ARTIFACT_BYTES.to_string()),
        "{e}"
    );
}

#[test]
fn a_header_claiming_a_gigabyte() {
    let mut bytes = artifact();
    bytes[16..24].copy_from_slice(&(1u64 << 30).to_le_bytes());
    let t = Instant::now();
    let e = decode(&bytes).unwrap_err();
    assert!(
        matches!(
            e,
            ArtifactError::Truncated {
                what: "artifact body",
                expected: 0x4000_0000,
                ..
            }
        ),
        "{e}"
    );
    assert!(matches!(
        Policy::from_artifact(&bytes),
        Err(LoadError::Artifact(ArtifactError::Truncated { .. }))
    ));
    assert!(t.elapsed() < Duration::from_secs(1));
}

// ---- the evaluation cost bound ------------------------------------------------------

#[test]
fn nested_macros_over_big_lists_stop_at_the_budget() {
    let ctx = json!({"l": (0..1000).collect::<Vec<i64>>()});
    for expr in [
        // 10^6 inner iterations wanted.
        "l.exists(x, l.exists(y, x == y + 1000000))",
        // 10^9.
        "l.exists(x, l.exists(y, l.all(z, x + y + z >= 0) && x < 0))",
        "l.all(x, l.exists_one(y, y == -1) || l.exists(y, x == y - 1))",
    ] {
        let prog = program(&when(expr));
        let (v, steps, len) = traced(&prog, &ctx);
        assert!(
            matches!(v, Val::Error(EvalError::IterationLimit)),
            "{expr}: {v:?}"
        );
        assert!(
            steps <= step_bound(len),
            "{expr}: {steps} > {}",
            step_bound(len)
        );
        // The budget was really spent: the bound is not vacuous.
        assert!(steps > MAX_MACRO_ITERATIONS as u64, "{expr}: {steps}");
    }
}

#[test]
fn steps_without_macros_are_at_most_the_code_length() {
    // A 100,000-leaf `any:`: every leaf runs on a context that matches none,
    // each instruction at most once. (The leaves are aliases of one anchored
    // leaf: 100,000 distinct leaves take ~10 s to read in a debug build;
    // `tests/suite/large_policies.rs` runs 20,000 distinct ones.)
    let n = 100_000;
    let mut src = String::from(
        "event_context_schema: {type: object, properties: {code: {type: string}}}\n\
         hooks:\n  - id: h\n    event: e\n    condition:\n      any:\n\
         \x20       - &leaf {path: code, op: eq, value: C}\n",
    );
    src.push_str(&"        - *leaf\n".repeat(n - 1));
    src.push_str("    action: {type: abort}\n");
    let prog = on_small_stack(move || program(&src));
    let ctx = json!({"code": "none"});
    let (v, steps, len) = traced(&prog, &ctx);
    assert!(matches!(v, Val::Bool(false)));
    assert!(steps <= len, "{steps} > {len}");
    assert!(steps >= n as u64, "{steps}");
    // The code itself is linear in the number of leaves: each is
    // `code == 'C' && has(code)` (`docs/src/semantics.md#condition-trees`),
    // four instructions, and each `||` link two.
    assert!(len <= 6 * n as u64, "{len}");
}

#[test]
fn steps_of_one_macro_are_linear_in_the_list() {
    let prog = program(&when("l.all(x, x >= 0 && x < 1000000)"));
    let mut per_item = Vec::new();
    for n in [1_000usize, 10_000, MAX_MACRO_ITERATIONS] {
        let ctx = json!({"l": vec![1; n]});
        let (v, steps, len) = traced(&prog, &ctx);
        assert!(matches!(v, Val::Bool(true)));
        assert!(steps <= step_bound(len));
        per_item.push(steps / n as u64);
    }
    // The same number of instructions per item, whatever the length.
    assert!(per_item.windows(2).all(|w| w[0] == w[1]), "{per_item:?}");
}
