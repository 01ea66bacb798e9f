//! The function table end to end (`ARCHITECTURE.md`, "How to add a
//! function"): every function is documented, and every function called on
//! random arguments gives the same result through the VM (arguments read
//! from the context), the reference evaluator, and constant folding (the
//! same call with literal arguments, folded at compile time).
//!
//! The implementations themselves are tested against models beside them
//! (`hookc-runtime`'s `functions::{strings, paths, urls, shell}` and
//! `tests/suite/text_functions.rs`); this suite tests what every stage
//! does with a row: resolution by name, form and arity, argument order,
//! typing, lowering to `Call`/`CallRegex`, the artifact round trip,
//! folding, and error and kind propagation.

use crate::rng::Rng;
use hookc::check::schema::ContextSchema;
use hookc::expr_program::{compile_expr, CompiledExpr, ExprMode};
use hookc::frontend::doc::Node;
use hookc::span::{FileId, Span};
use hookc::testing::reference;
use hookc_runtime::bytecode::Op;
use hookc_runtime::functions::{Builtin, Derived, Form, PatternKind};
use hookc_runtime::internals::context::{PathCache, Source};
use hookc_runtime::internals::value::{EvalError, Val};
use hookc_runtime::internals::vm::{eval_hook, ErrorSite};
use hookc_runtime::verify::VerifiedProgram;
use serde_json::{json, Map, Value};

/// Strings the text functions' edges are made of: empty, separators,
/// multi-byte code points, paths, URLs, shell-ish text.
const STRINGS: &[&str] = &[
    "",
    "a",
    "ab",
    "a,b,,c",
    " \t padded \n",
    "é",
    "日本語",
    "🦀x🦀",
    "ABC def",
    "/",
    ".",
    "..",
    "a/../.env",
    "/proj/src/main.rs",
    "/proj2/x",
    "./a//b/",
    ".env.local",
    "a.tar.gz",
    "https://User@Evil.COM:8080/x?y#z",
    "http:\\\\evil.com\\@good.com",
    "example.com/path",
    "file:///etc/passwd",
    "[::1]:80",
    "rm -rf /tmp/x",
    "code 42 and code 7",
    ",",
    "/proj",
];

const INTS: &[i64] = &[-2, -1, 0, 1, 2, 3, 5, 100, i64::MAX];

const REGEXES: &[&str] = &[
    r"(\d+)",
    r"code (\d+)(?: and code (\d+))?",
    r"^(\w+)://([^/:]+)",
    r"(x)?y",
    "é(.)",
    "",
];

const PATH_GLOBS: &[&str] = &["**/.env*", "*.rs", "/proj/**", "**", "a/?", "**/[a-c]*"];

/// A random value of one of `kinds`' kinds (mostly the kinds asked for,
/// sometimes another, to reach `no such overload`).
fn value(rng: &mut Rng, kinds: hookc_runtime::bytecode::Kinds) -> Value {
    use hookc_runtime::bytecode::Kinds;
    let wanted: Vec<Kinds> = [
        Kinds::STRING,
        Kinds::INT,
        Kinds::LIST,
        Kinds::OBJECT,
        Kinds::BOOL,
    ]
    .into_iter()
    .filter(|k| kinds.intersects(*k))
    .collect();
    let kind = if rng.below(12) == 0 || wanted.is_empty() {
        *rng.pick(&[Kinds::STRING, Kinds::INT, Kinds::NULL])
    } else {
        *rng.pick(&wanted)
    };
    match kind {
        k if k == Kinds::STRING => json!(rng.pick(STRINGS)),
        k if k == Kinds::INT => json!(rng.pick(INTS)),
        k if k == Kinds::LIST => {
            let n = rng.below(4);
            Value::Array((0..n).map(|_| json!(rng.pick(STRINGS))).collect())
        }
        k if k == Kinds::OBJECT => {
            let mut m = Map::new();
            for _ in 0..rng.below(3) {
                m.insert((*rng.pick(STRINGS)).to_owned(), json!(rng.pick(INTS)));
            }
            Value::Object(m)
        }
        k if k == Kinds::BOOL => json!(rng.below(2) == 0),
        _ => Value::Null,
    }
}

/// `v` as a literal of the `when` language.
fn literal(v: &Value) -> String {
    match v {
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(literal).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(m) => {
            let entries: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", literal(&json!(k)), literal(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        // JSON's string escapes are the language's, and an int is itself.
        other => other.to_string(),
    }
}

/// The call of `f` on `args` (the receiver first), the pattern last.
fn call_text(f: Builtin, args: &[String], pattern: Option<&str>) -> String {
    let def = f.def();
    let mut rest: Vec<String> = args.to_vec();
    let head = match def.form {
        Form::Method => {
            let recv = rest.remove(0);
            format!("({recv}).{}", def.name)
        }
        _ => def.qualified_name(),
    };
    if let Some(p) = pattern {
        rest.push(literal(&json!(p)));
    }
    format!("{head}({})", rest.join(", "))
}

fn free_form() -> ContextSchema {
    let mut diags = hookc::diag::Diagnostics::new();
    let node = Node::from_json(&json!({"type": "object"}), Span::new(FileId(0), 0, 0));
    ContextSchema::from_node(&node, &mut diags)
}

/// The outcome of a value: its JSON, or its error.
fn outcome(v: &Val<'_>) -> Result<Value, EvalError> {
    match v {
        Val::Error(e) => Err(*e),
        other => Ok(other.to_json().unwrap_or(Value::Null)),
    }
}

/// The reference evaluator's outcome of `compiled` on `ctx`.
fn reference_outcome(compiled: &CompiledExpr, ctx: &Value) -> Result<Value, EvalError> {
    let consts = reference::Constants::new(compiled.expr());
    outcome(&reference::eval_with(
        compiled.expr(),
        compiled.paths(),
        ctx,
        &consts,
    ))
}

/// Which outcome it is: 0 `true`, 1 another value, 2 an error.
fn outcome_class(outcome: &Result<Value, EvalError>) -> usize {
    match outcome {
        Ok(Value::Bool(true)) => 0,
        Ok(_) => 1,
        Err(_) => 2,
    }
}

/// The VM's result of the one-hook program of `text` on `ctx`, through an
/// artifact round trip.
fn vm(text: &str, ctx: &Value) -> (Result<Value, EvalError>, VerifiedProgram) {
    let compiled = compile_expr(text, &free_form(), ExprMode::Unchecked)
        .unwrap_or_else(|d| panic!("`{text}`: {d:?}"));
    let program = hookc::lower::lower(&compiled.policy());
    let bytes = hookc_runtime::artifact::encode(&program);
    let loaded = hookc_runtime::artifact::load(&bytes).unwrap_or_else(|e| panic!("`{text}`: {e}"));
    let derived = Derived::new();
    let result = {
        let mut cache =
            PathCache::new(&loaded.program().paths, Source::Document(ctx)).with_derived(&derived);
        outcome(&eval_hook(&loaded, 0, &mut cache, None))
    };
    (result, loaded)
}

#[test]
fn every_function_is_documented() {
    let docs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/src/semantics.md"
    ))
    .unwrap();
    let missing: Vec<String> = Builtin::ALL
        .iter()
        .map(|f| f.def().usage())
        .filter(|u| !docs.contains(&format!("`{u}`")) && !docs.contains(&format!("`{u},")))
        .filter(|u| !docs.contains(u.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "not in docs/src/semantics.md: {missing:?}"
    );
}

#[test]
fn the_vm_the_reference_and_folding_agree_on_random_arguments() {
    let mut rng = Rng(0x22f0_0c75);
    let (mut folded, mut errors, mut values) = (0usize, 0usize, 0usize);
    for &f in Builtin::ALL {
        let def = f.def();
        for _ in 0..60 {
            let stack: Vec<_> = def.params.iter().filter(|p| p.pattern.is_none()).collect();
            let args: Vec<Value> = stack.iter().map(|p| value(&mut rng, p.kinds)).collect();
            let pattern = def.pattern().map(|kind| match kind {
                PatternKind::Regex => *rng.pick(REGEXES),
                PatternKind::PathGlob => *rng.pick(PATH_GLOBS),
            });
            let ctx: Map<String, Value> = args
                .iter()
                .enumerate()
                .map(|(i, v)| (format!("a{i}"), v.clone()))
                .collect();
            let ctx = Value::Object(ctx);
            let names: Vec<String> = (0..args.len()).map(|i| format!("a{i}")).collect();
            let from_context = call_text(f, &names, pattern);
            let literals: Vec<String> = args.iter().map(literal).collect();
            let from_literals = call_text(f, &literals, pattern);

            let (by_vm, program) = vm(&from_context, &ctx);
            let uses_call = program.program().code.iter().any(
                |op| matches!(op, Op::Call(g) | Op::CallRegex { func: g, .. } if *g == f.func_id()),
            );
            assert!(
                uses_call || f.def().lowering != hookc_runtime::functions::Lowering::Call,
                "`{from_context}` does not call {f:?}"
            );

            let compiled = compile_expr(&from_context, &free_form(), ExprMode::Unchecked).unwrap();
            let by_reference = reference_outcome(&compiled, &ctx);
            assert_eq!(by_vm, by_reference, "`{from_context}` on {ctx}");

            let (by_folding, folded_program) = vm(&from_literals, &json!({}));
            assert_eq!(
                by_vm, by_folding,
                "`{from_literals}` against `{from_context}` on {ctx}"
            );
            let code = &folded_program.program().code;
            if by_vm.is_ok()
                && !code
                    .iter()
                    .any(|op| matches!(op, Op::Call(_) | Op::CallRegex { .. }))
            {
                folded += 1;
            }
            match by_vm {
                Ok(_) => values += 1,
                Err(_) => errors += 1,
            }
        }
    }
    // The arguments reach both outcomes, and folding takes the calls that
    // give values.
    assert!(values > Builtin::ALL.len() * 20, "{values} values");
    assert!(errors > Builtin::ALL.len(), "{errors} errors");
    assert!(folded > values / 2, "{folded} of {values} folded");
}

/// The shell-program prefilter (`lower/prefilter.rs`) on random guards and
/// commands: the VM runs the rewritten condition, the reference evaluator
/// the condition as written, and both give the same value or error, in
/// every shape the rewrite takes and in those it must leave alone (a
/// macro after it, `||`, a computed subject).
#[test]
fn the_shell_program_prefilter_is_exact() {
    let commands: Vec<Value> = [
        "rm -rf x",
        "sudo rm x",
        "echo rm",
        "",
        "ls; git push -f origin main",
        "'unterminated",
        "bash -c 'rm -r -f /'",
        "cd /tmp && rm -r x && ls",
        "/usr/bin/git push x",
        "git -C . push --force",
        "/bin/rm -f y; ./git push",
        "pushd /tmp && gitx push",
        "git -c a=b reset --hard; npm exec --yes x",
        "npx -y x && git status",
        "git log | git reset",
    ]
    .iter()
    .map(|s| json!(s))
    .chain([json!(5), Value::Null])
    .collect();
    let tests = [
        "c.program == 'rm'",
        "'rm' == c.program",
        "c.program in ['rm', 'git']",
        "c.program == 'ls'",
        "c.argvPrefix(['git', 'push'])",
        "c.argvPrefix(['/usr/bin/git', 'push'])",
        "c.argvPrefix(['rm'])",
        "(c.program == 'ls' || c.argvPrefix(['git', 'push']))",
        "(c.program in ['cd', 'pushd'] || c.program == 'rm' && c.argv.size() > 2)",
        "c.argvPrefix(['git', 'reset'])",
        "(c.argvPrefix(['git', 'push']) || c.argvPrefix(['npm', 'exec']) && c.argv.size() > 3)",
        "(c.program == 'npx' || c.argvPrefix(['npm', 'exec']))",
    ];
    let rests = [
        "c.hasFlag('r', 'recursive')",
        "c.argv[5] == 'x'",
        "true",
        "c.argv.exists(a, a == '-f')",
    ];
    let shapes = [
        "EXISTS",
        "tag == 'x' && EXISTS",
        "EXISTS && size(cmd) > 3",
        "EXISTS && tags.exists(t, t == 'x')",
        "EXISTS || tag == 'x'",
        "tags.exists(t, t == 'x') && EXISTS",
    ];
    let mut rng = Rng(0x005e_11f1);
    let mut rewritten = 0usize;
    // Which program tests were rewritten: every form the rewrite reads; and
    // by which test (`shell.runs`, `shell.runsPrefix`).
    let mut rewritten_tests = std::collections::BTreeSet::new();
    let mut by_prefix = 0usize;
    let gates = [Builtin::ShellRuns, Builtin::ShellRunsPrefix].map(|b| b.func_id());
    // How often each outcome came: `true`, `false`, an error.
    let mut outcomes = [0usize; 3];
    for _ in 0..400 {
        let test = rng.pick(&tests);
        let rest = rng.pick(&rests);
        let exists = format!("shell.commands(cmd).exists(c, {test} && {rest})");
        let text = rng.pick(&shapes).replace("EXISTS", &exists);
        let compiled = compile_expr(&text, &free_form(), ExprMode::Unchecked).unwrap();
        let program = hookc::lower::lower(&compiled.policy());
        let gate = program.code.iter().find_map(|op| match op {
            Op::Call(g) if gates.contains(g) => Some(*g),
            _ => None,
        });
        if let Some(gate) = gate {
            rewritten += 1;
            rewritten_tests.insert(test);
            by_prefix += usize::from(gate == Builtin::ShellRunsPrefix.func_id());
        }
        let loaded = hookc_runtime::verify::verify(program).unwrap();
        for _ in 0..6 {
            let mut ctx = Map::new();
            if rng.below(8) != 0 {
                ctx.insert("cmd".into(), rng.pick(&commands).clone());
            }
            ctx.insert("tag".into(), json!(rng.pick(&["x", "y"])));
            ctx.insert("tags".into(), json!(["y", rng.pick(&["x", "z"])]));
            let ctx = Value::Object(ctx);
            let derived = Derived::new();
            let by_vm = {
                let mut cache = PathCache::new(&loaded.program().paths, Source::Document(&ctx))
                    .with_derived(&derived);
                outcome(&eval_hook(&loaded, 0, &mut cache, None))
            };
            let by_reference = reference_outcome(&compiled, &ctx);
            assert_eq!(by_vm, by_reference, "`{text}` on {ctx}");
            outcomes[outcome_class(&by_vm)] += 1;
        }
    }
    // Most shapes are rewritten; those after which a macro runs are not.
    assert!(rewritten > 150 && rewritten < 400, "{rewritten} rewritten");
    assert_eq!(rewritten_tests.len(), tests.len(), "{rewritten_tests:?}");
    // Subcommand rules (prefixes of two words) by their own test.
    assert!(by_prefix > 40, "{by_prefix} by `shell.runsPrefix`");
    // The contexts reach every outcome, so the rewrite is compared where it
    // decides, where it passes on, and on errors.
    assert!(outcomes.iter().all(|&n| n > 100), "{outcomes:?}");
}

/// `shell.runsPrefix(s, prefixes)` on random commands and prefix lists,
/// written out and computed from the context: the VM gives what the walk
/// it stands for gives (`shell.commands(s).exists(c, prefixes.exists(w,
/// c.argvPrefix(w)))`), and an error for a prefix that is not a list of
/// strings.
#[test]
fn shell_runs_prefix_is_the_walk_it_stands_for() {
    let commands = [
        "git -C . push --force",
        "git -c a=b reset --hard; npm exec --yes x",
        "/usr/bin/git push origin",
        "echo git push; gitx push",
        "sudo git reset HEAD~1",
        "npm install && npx -y y",
        "",
        "'unterminated git push",
        // Where a program is not a plain name.
        "./git push; git/ push; / push",
        "X=git; $X push && env git reset",
        "\\git push || 'g'it reset || busybox git push",
    ];
    let prefixes = [
        "[['git', 'push']]",
        "[['git', 'reset'], ['npm', 'exec']]",
        "[['/usr/bin/git', 'push']]",
        "[['git']]",
        "[]",
        "[['git', 'push', 'origin'], ['npx', '-y']]",
        "[['git', word]]",
        "[[word]]",
        "[['./git', 'push'], ['git/', 'push'], ['/', 'push']]",
        "[['', 'push']]",
    ];
    let mut rng = Rng(0x0a1e_57f1);
    let mut outcomes = [0usize; 3];
    for _ in 0..400 {
        let p = *rng.pick(&prefixes);
        let ctx = json!({"cmd": rng.pick(&commands), "word": rng.pick(&["push", "reset", "git"])});
        let (fast, _) = vm(&format!("shell.runsPrefix(cmd, {p})"), &ctx);
        let (walk, _) = vm(
            &format!("shell.commands(cmd).exists(c, {p}.exists(w, c.argvPrefix(w)))"),
            &ctx,
        );
        assert_eq!(fast, walk, "{p} on {ctx}");
        outcomes[outcome_class(&fast)] += 1;
    }
    assert!(outcomes[0] > 30 && outcomes[1] > 30, "{outcomes:?}");
    for bad in ["[['git', 1]]", "['git', 'push']", "[['git'], 'x']"] {
        let (r, _) = vm(
            &format!("shell.runsPrefix(cmd, {bad})"),
            &json!({"cmd": "git push"}),
        );
        assert_eq!(r, Err(EvalError::NoSuchOverload), "{bad}");
    }
}

/// Chains of regex tests joined by `||` on macro variables (`path.match(p,
/// G1) || path.match(p, G2) || ...`), which the VM runs link by link in
/// one step (`eval/vm`, `or_matches`), on random lists of strings and of
/// other values (whose tests are errors): the VM gives what the reference
/// evaluator gives, and what the VM gives when it traces, stepping through
/// every instruction. Links of other shapes (`p == 'x'`, a test of another
/// variable, `&&`) break a chain where they stand.
#[test]
fn regex_chains_on_a_macro_variable_run_as_written() {
    let globs = [
        "**/.claude/settings*.json",
        "**/.hookc/**",
        "**/state/hookc",
        "**/.moat",
        "**/bin/*",
        "*.rs",
        "**",
    ];
    let regexes = ["^/etc/", "x", "a|b", "(?i)SECRET", ""];
    let items = [
        json!("/home/u/.claude/settings.local.json"),
        json!("a/.hookc/x"),
        json!("/var/state/hookc"),
        json!(".moat"),
        json!("/usr/bin/ls"),
        json!("main.rs"),
        json!("/etc/passwd"),
        json!("abc"),
        json!(""),
        json!(5),
        Value::Null,
        json!(["x"]),
    ];
    let mut rng = Rng(0x0c4a_1175);
    let (mut fused, mut outcomes) = (0usize, [0usize; 3]);
    for _ in 0..300 {
        let links: Vec<String> = (0..1 + rng.below(6))
            .map(|_| {
                let var = *rng.pick(&["p", "p", "p", "q"]);
                match rng.below(10) {
                    0 => format!("{var} == 'abc'"),
                    1 => format!("(path.match({var}, '*.rs') && {var}.size() > 2)"),
                    2..=4 => format!("{var}.matches('{}')", rng.pick(&regexes)),
                    _ => format!("path.match({var}, '{}')", rng.pick(&globs)),
                }
            })
            .collect();
        let text = format!(
            "qs.exists(q, ps.{}(p, {}))",
            rng.pick(&["exists", "all", "exists_one", "filter"]),
            links.join(" || ")
        );
        let compiled = compile_expr(&text, &free_form(), ExprMode::Unchecked).unwrap();
        let program = hookc::lower::lower(&compiled.policy());
        fused += usize::from(program.code.windows(5).any(|w| {
            matches!(
                w,
                [
                    Op::Matches(_),
                    Op::OrShort(_),
                    Op::Var(_),
                    Op::Matches(_),
                    Op::OrJoin
                ]
            )
        }));
        let loaded = hookc_runtime::verify::verify(program).unwrap();
        for _ in 0..8 {
            let list = |rng: &mut Rng| -> Vec<Value> {
                (0..rng.below(5))
                    .map(|_| rng.pick(&items).clone())
                    .collect()
            };
            let ctx = json!({"ps": list(&mut rng), "qs": list(&mut rng)});
            let by_vm = stepped_alike(&loaded, &compiled, &text, &ctx);
            outcomes[outcome_class(&by_vm)] += 1;
        }
    }
    // Most conditions hold a chain, and the contexts reach every outcome.
    assert!(fused > 150, "{fused} chains");
    assert!(outcomes.iter().all(|&n| n > 200), "{outcomes:?}");
}

/// The VM's outcome of the one-hook `loaded` (compiled from `text`) on
/// `ctx`, checked against the reference evaluator's and against the VM's
/// when it traces, stepping through every instruction (the untraced VM
/// runs some instruction sequences in one step: `eval/vm`).
fn stepped_alike(
    loaded: &VerifiedProgram,
    compiled: &CompiledExpr,
    text: &str,
    ctx: &Value,
) -> Result<Value, EvalError> {
    let derived = Derived::new();
    let run = |trace: Option<&mut ErrorSite>| {
        let mut cache =
            PathCache::new(&loaded.program().paths, Source::Document(ctx)).with_derived(&derived);
        outcome(&eval_hook(loaded, 0, &mut cache, trace))
    };
    let by_vm = run(None);
    let by_steps = run(Some(&mut ErrorSite::default()));
    assert_eq!(by_vm, reference_outcome(compiled, ctx), "`{text}` on {ctx}");
    assert_eq!(by_vm, by_steps, "`{text}` on {ctx}, traced");
    by_vm
}

/// A macro variable's member (`x.k`, `c.program`: `Var; Field`, which the
/// VM reads in place), of objects, of values that are none (an error), of
/// missing keys and of parsed commands, at every nesting depth, as the
/// reference evaluator and the traced VM read it.
#[test]
fn members_of_a_macro_variable_read_as_written() {
    let items = [
        json!({"k": "a", "j": 1}),
        json!({"k": ["a"], "j": "a"}),
        json!({"j": 2}),
        json!({}),
        json!("k"),
        json!(7),
        Value::Null,
        json!([{"k": "a"}]),
    ];
    let bodies = [
        "V.k == 'a'",
        "V.j > 0",
        "has(V.k)",
        "V.k.size() > 0",
        "'a' in V.k",
        "V.k == W.j",
        "c.program == V.k",
        "c.argv.exists(a, a == V.k)",
    ];
    let mut rng = Rng(0x7a1d_0f1e);
    let mut outcomes = [0usize; 3];
    for _ in 0..200 {
        let (v, w) = (*rng.pick(&["x", "y"]), *rng.pick(&["x", "y"]));
        let body = rng.pick(&bodies).replace('V', v).replace('W', w);
        let text = format!(
            "shell.commands(cmd).exists(c, xs.{}(x, ys.exists(y, {body})))",
            rng.pick(&["exists", "all", "exists_one", "filter", "map"])
        );
        let compiled = compile_expr(&text, &free_form(), ExprMode::Unchecked).unwrap();
        let loaded =
            hookc_runtime::verify::verify(hookc::lower::lower(&compiled.policy())).unwrap();
        for _ in 0..8 {
            let list = |rng: &mut Rng| -> Vec<Value> {
                (0..rng.below(4))
                    .map(|_| rng.pick(&items).clone())
                    .collect()
            };
            let ctx = json!({"xs": list(&mut rng), "ys": list(&mut rng), "cmd": "a a; ls"});
            outcomes[outcome_class(&stepped_alike(&loaded, &compiled, &text, &ctx))] += 1;
        }
    }
    assert!(outcomes.iter().all(|&n| n > 100), "{outcomes:?}");
}

/// A command of `shell.commands` is an object read without a map
/// (`hookc_runtime::value::command`): every operation on it gives what the
/// same operation gives on its JSON object, which the context holds as
/// `obj` (and the whole list as `objs`).
#[test]
fn a_parsed_command_reads_as_its_json_object() {
    let cmd = "cd /tmp && FOO=1 sudo rm -rf ~/x > out.log; bash <<< 'ls'";
    let script = hookc_runtime::functions::shell::parse(cmd);
    let objs = script.to_json();
    let ctx = json!({"cmd": cmd, "obj": objs[1].clone(), "objs": objs.clone()});
    let forms = [
        "X.program",
        "X.argv",
        "X.env",
        "X.redirects",
        "X.wrappers",
        "X.pipedFrom",
        "X.code",
        "X.codeFrom",
        "X.dynamic",
        "X.dir",
        "X.paths",
        "X.nope",
        "has(X.argv)",
        "has(X.nope)",
        "'argv' in X",
        "'nope' in X",
        "1 in X",
        "size(X)",
        "X == obj",
        "obj == X",
        "X == {}",
        "[X] == [obj]",
        "X == objs[0]",
        "X['program']",
        "X['nope']",
        "X.get('program', 'd')",
        "X.get('nope', 'd')",
        "X.exists(k, k == 'paths')",
        "X.all(k, size(k) > 1)",
        "X.map(k, k)",
        "X.filter(k, k.startsWith('p'))",
        "strings(X)",
        "X.hasFlag('r', 'recursive')",
        "X.hasFlag('f')",
        "X.argvPrefix(['rm', '-rf'])",
        "X.argvPrefix(['rm', '-rf', '~/x', 'y'])",
        "X.argvPrefix(['/bin/rm'])",
        "X.argvPrefix([])",
        "X.argvPrefix(['rm', 1])",
        "X.argvPrefix(['rm', '-rf'] + [obj.program])",
        "X.paths()",
        "[X, 1][0].program",
        "(true ? X : obj).argv[1]",
        // The word lists, read in place (`Val::Words`), as the JSON lists.
        "X.argv[0]",
        "(true ? X : obj).argv[9]",
        "(true ? X : obj).argv[-1]",
        "size(X.argv)",
        "'-rf' in X.argv",
        "'x' in X.argv",
        "X.argv == obj.argv",
        "X.argv == ['rm', '-rf', '~/x']",
        "[X.argv] == [obj.argv]",
        "X.argv + ['z']",
        "['z'] + X.argv",
        "X.argv + X.wrappers",
        "X.argv.exists(a, a == 'rm')",
        "X.argv.all(a, a.startsWith('-'))",
        "X.argv.map(a, a + '!')",
        "X.argv.filter(a, !a.startsWith('-'))",
        "X.argv.join(' ')",
        "strings(X.argv)",
        "X.wrappers[0]",
        "X.wrappers == ['sudo']",
        "X.paths().filter(p, p.startsWith('/'))",
        "X.paths() == obj.paths",
        "X.paths().exists(p, path.match(p, '**/x'))",
        "X.env.FOO",
        "X.env == {'FOO': '1'}",
        "X.redirects[0].target",
        "X.redirects.map(r, r.op + r.target)",
        "X.redirects == obj.redirects",
    ];
    for form in forms {
        let on_command = form.replace('X', "shell.commands(cmd)[1]");
        let on_object = form.replace('X', "obj");
        let (got, _) = vm(&on_command, &ctx);
        let (want, _) = vm(&on_object, &ctx);
        assert_eq!(got, want, "`{on_command}` against `{on_object}`");
    }
    for (on_list, on_json) in [
        ("shell.commands(cmd) == objs", "objs == objs"),
        ("objs == shell.commands(cmd)", "true"),
        ("size(shell.commands(cmd))", "size(objs)"),
        (
            "shell.commands(cmd).map(c, c.program)",
            "objs.map(c, c.program)",
        ),
        ("obj in shell.commands(cmd)", "obj in objs"),
        ("shell.commands(cmd)[5]", "objs.filter(c, true)[5]"),
        ("strings(shell.commands(cmd))", "strings(objs)"),
        ("shell.commands(cmd)", "objs"),
    ] {
        let (got, _) = vm(on_list, &ctx);
        let (want, _) = vm(on_json, &ctx);
        assert_eq!(got, want, "`{on_list}` against `{on_json}`");
    }
    // The forms reach values and errors both.
    assert!(vm("shell.commands(cmd)[1].nope", &ctx).0.is_err());
    assert_eq!(
        vm("shell.commands(cmd)[1].program", &ctx).0,
        Ok(json!("rm"))
    );
}

/// `shell.paths(s)` is every command's `paths`, in order, and reads as the
/// JSON list of them (it borrows the commands' strings).
#[test]
fn shell_paths_are_the_commands_paths_in_order() {
    let cmd = "cd /tmp && cp a ~/.ssh/id_rsa b > out.log; cat <x 2>&1 | tee -a y";
    let script = hookc_runtime::functions::shell::parse(cmd);
    let all: Vec<String> = script.commands.iter().flat_map(|c| c.paths()).collect();
    assert!(all.len() >= 5, "{all:?}");
    let list = json!(all);
    let ctx = json!({"cmd": cmd, "list": list});
    for (form, want) in [
        ("shell.paths(cmd)", list.clone()),
        ("shell.paths(cmd) == list", json!(true)),
        ("size(shell.paths(cmd))", json!(all.len())),
        ("shell.paths(cmd)[1]", json!(all[1])),
        ("'~/.ssh/id_rsa' in shell.paths(cmd)", json!(true)),
        ("'a' in shell.paths(cmd)", json!(false)),
        (
            "shell.paths(cmd).filter(p, p.startsWith('/tmp'))",
            json!(all
                .iter()
                .filter(|p| p.starts_with("/tmp"))
                .collect::<Vec<_>>()),
        ),
        ("shell.paths(cmd) + ['z'] == list + ['z']", json!(true)),
        ("strings(shell.paths(cmd)) == list", json!(true)),
    ] {
        assert_eq!(vm(form, &ctx).0, Ok(want), "{form}");
    }
}
