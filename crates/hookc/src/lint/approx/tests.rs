//! Tests of the approximations: implications between conditions, number
//! bounds, unions and prefixes, CEL's error rules, contradictions, exact globs
//! and the bound on cubes.

use super::*;
use crate::diag::Diagnostics;
use crate::ir::{IrExpr, IrExprKind};
use crate::resolve::ast_to_ir::Resolver;
use crate::span::{FileId, Origin};
use hookc_runtime::bytecode::path::PathTable;

fn parse(src: &str, paths: &mut PathTable) -> IrExpr {
    let mut diags = Diagnostics::new();
    let ast = crate::syntax::parse(src, Origin::file_start(FileId(0))).unwrap();
    Resolver::new(paths, &mut diags).resolve(&ast).unwrap()
}

/// `true` when `b` true ⇒ `a` true is proved.
fn implies(b: &str, a: &str) -> bool {
    let mut paths = PathTable::new();
    let (eb, ea) = (parse(b, &mut paths), parse(a, &mut paths));
    let prefixes = Prefixes::new(&paths);
    let mut an = Analyzer::new(&paths);
    let tb = an.condition(&eb).t.over.normalize(&prefixes);
    let ta = an.condition(&ea).t.under;
    let cands: Vec<&Cube> = ta.cubes.iter().collect();
    let mut work = 0;
    tb.cubes
        .iter()
        .all(|c| covered_by(c, &cands, &an.tests, &mut work).is_some())
}

fn never_true(src: &str) -> bool {
    let mut paths = PathTable::new();
    let e = parse(src, &mut paths);
    let prefixes = Prefixes::new(&paths);
    Analyzer::new(&paths)
        .condition(&e)
        .t
        .over
        .normalize(&prefixes)
        .is_empty()
}

#[test]
fn implications_of_the_brief() {
    assert!(implies("x > 10", "x > 5"));
    assert!(!implies("x > 5", "x > 10"));
    assert!(implies("x == 'a'", "has(x)"));
    assert!(implies("x == 'b'", "x != 'a'"));
    assert!(!implies("x != 'a'", "x == 'b'"));
    // A missing x is an error, not false: `x != 'a'` does not cover `!has(x)`.
    assert!(!implies("!has(x)", "x != 'a'"));
}

#[test]
fn int_and_double_bounds() {
    assert!(implies("x >= 2", "x > 1"));
    assert!(!implies("x > 1", "x >= 2"));
    assert!(implies("x == 1", "x == 1.0"));
    assert!(implies("x > 1.5", "x > 1"));
    assert!(!implies("x > 1", "x > 1.5"));
}

#[test]
fn unions_and_prefixes() {
    assert!(implies("x in ['a', 'b']", "x == 'a' || x == 'b'"));
    assert!(!implies("x in ['a', 'b', 'c']", "x == 'a' || x == 'b'"));
    assert!(implies("x.startsWith('AUTH_X')", "x.startsWith('AUTH_')"));
    assert!(implies("x == 'AUTH_1'", "x.startsWith('AUTH_')"));
    assert!(implies("x < 3 || x >= 3", "x < 3 || x >= 3"));
    assert!(implies("has(x)", "x == null || x != null"));
    assert!(!implies("y == 1", "has(x) || x == 2"));
    assert!(implies("y == 1", "has(x) || !has(x)"));
    // Nested paths: a resolving extension makes its prefix present.
    assert!(implies("a.b == 1", "has(a)"));
    assert!(implies("a.b.c == 1", "has(a.b)"));
    // Unknown leaves still require what they read.
    assert!(implies("x.matches('^a')", "has(x)"));
    assert!(implies("x + 1 > y", "has(x) && has(y)"));
    assert!(!implies("x + 1 > y || z", "has(x)"));
    // ... and never prove more than that.
    assert!(!implies("size(x) > 3", "size(x) > 2"));
    assert!(!implies("x.matches('time')", "x.matches('timeout')"));
    // Identical opaque leaves agree.
    assert!(implies("x.matches('^a') && y == 1", "x.matches('^a')"));
    assert!(implies("size(x) > 3", "size(x) > 3 || y"));
    assert!(!implies("true", "x.matches('a') || !x.matches('a')"));
    assert!(implies(
        "has(x)",
        "x.contains('a') || !x.contains('a') || x == 1 || x != 1"
    ));
}

#[test]
fn errors_are_neither_true_nor_false() {
    // `!(x > 5)` is true only for numbers <= 5 (a string makes it an error).
    assert!(implies("!(x > 5)", "x <= 5"));
    assert!(implies("x <= 5", "!(x > 5)"));
    // `x > 5 || x <= 5` is not every context: x may be missing or a string.
    assert!(!implies("true", "x > 5 || x <= 5"));
    // Conditional.
    assert!(implies("c ? x == 1 : x == 2", "x == 1 || x == 2"));
}

#[test]
fn contradictions() {
    assert!(never_true("x == 'a' && x == 'b'"));
    assert!(never_true("x > 10 && x < 5"));
    assert!(never_true("x == 'a' && x > 5"));
    assert!(never_true("!has(a) && a.b == 1"));
    assert!(never_true("x in []"));
    assert!(never_true("false"));
    assert!(!never_true("x > 10 && x < 10.5"));
    assert!(!never_true("x == 'a' || x == 'b'"));
    assert!(!never_true("x.matches('a') && x.matches('b')"));
    assert!(never_true("x.matches('a') && !x.matches('a')"));
    assert!(never_true("x.matches('a') && x == 1"));
}

#[test]
fn literal_and_prefix_globs_are_exact() {
    // A literal glob is `==` on strings, a trailing `*` a `startsWith`.
    assert!(implies("x.glob('Bash')", "x == 'Bash'"));
    assert!(implies("x == 'Bash'", "x.glob('Bash')"));
    assert!(implies(
        "x.glob('Bash(git:status)')",
        "x.glob('Bash(git:*')"
    ));
    assert!(implies("x.glob('Bash(git:*')", "x.startsWith('Bash(git:')"));
    assert!(implies("x.glob('ab*')", "x.glob('a*')"));
    assert!(!implies("x.glob('a*')", "x.glob('ab*')"));
    assert!(implies("x.glob('Read')", "x.glob('*')"));
    assert!(never_true("x.glob('Bash') && x.glob('Read')"));
    assert!(never_true("x.glob('Bash') && x == 1"));
    // On a non-string a glob is an error, not false (unlike `!=`).
    assert!(!implies("x == 1", "!x.glob('Bash')"));
    assert!(implies("x == 'Read'", "!x.glob('Bash')"));
    assert!(!implies("true", "x.glob('*')"));
    assert!(implies("x.startsWith('')", "x.glob('*')"));
    // Other globs are atoms: only identical ones are related.
    assert!(!implies(
        "x.glob('Bash(git:status)')",
        "x.glob('Bash(git:*)')"
    ));
    assert!(!implies("x.glob('Bash(git:*)')", "x.glob('Bash(*)')"));
    assert!(implies("x.glob('a?') && y", "x.glob('a?')"));
    assert!(implies("x.glob('a?')", "has(x)"));
    assert!(never_true("x.glob('a?') && x == 1"));
    // A glob is not the regex of its text.
    assert!(!implies("x.matches('Bash')", "x.glob('Bash')"));
}

#[test]
fn long_disjunctions_stay_one_cube() {
    let mut paths = PathTable::new();
    // Built by folding: the parser's depth limit allows 128 links.
    let leaf = parse("x == 'c0'", &mut paths);
    let mut e = leaf.clone();
    for i in 1..200 {
        let l = parse(&format!("x == 'c{i}'"), &mut paths);
        e = IrExpr::new(IrExprKind::Or(Box::new(e), Box::new(l)), leaf.span);
    }
    let a = Analyzer::new(&paths).condition(&e);
    assert_eq!(a.t.under.cubes.len(), 1);
    assert_eq!(a.t.over, a.t.under);
}

#[test]
fn string_tests_imply_each_other() {
    // Prefixes (in the domain) against equalities and other prefixes.
    assert!(implies("tool == 'git-push'", "tool.startsWith('git')"));
    assert!(implies("tool.startsWith('git-')", "tool.startsWith('git')"));
    assert!(!implies(
        "tool.startsWith('git')",
        "tool.startsWith('git-')"
    ));
    // Suffixes.
    assert!(implies("path == 'prod.env'", "path.endsWith('.env')"));
    assert!(implies("path.endsWith('/.env')", "path.endsWith('.env')"));
    assert!(!implies("path.endsWith('.env')", "path.endsWith('/.env')"));
    assert!(!implies("path.contains('.env')", "path.endsWith('.env')"));
    assert!(!implies("path == 'prod.envx'", "path.endsWith('.env')"));
    assert!(!implies(
        "path.startsWith('a.env')",
        "path.endsWith('.env')"
    ));
    // Substrings.
    assert!(implies("cmd.contains('rm -rf')", "cmd.contains('rm')"));
    assert!(implies("cmd.startsWith('rm ')", "cmd.contains('rm')"));
    assert!(implies("cmd == 'sudo rm x'", "cmd.contains('rm')"));
    assert!(implies("cmd.endsWith('rm -rf')", "cmd.contains('rm')"));
    assert!(implies("cmd in ['rm', 'xrmx']", "cmd.contains('rm')"));
    assert!(!implies("cmd.contains('rm')", "cmd.contains('rm -rf')"));
    assert!(!implies("cmd.startsWith('r')", "cmd.contains('rm')"));
    assert!(!implies("cmd in ['rm', 'ls']", "cmd.contains('rm')"));
    assert!(!implies("has(cmd)", "cmd.contains('')"));
    // Globs that are a suffix or a substring test.
    assert!(implies("path.glob('*/.env')", "path.endsWith('.env')"));
    assert!(implies("cmd.glob('*rm -rf*')", "cmd.glob('*rm*')"));
    assert!(implies("cmd.contains('rm')", "cmd.glob('*rm*')"));
    assert!(!implies("cmd.glob('*rm*')", "cmd.glob('*rm')"));
    // Negations: failing a weaker test fails a stronger one.
    assert!(implies("!cmd.contains('rm')", "!cmd.contains('rm -rf')"));
    assert!(!implies("!cmd.contains('rm -rf')", "!cmd.contains('rm')"));
    assert!(implies("cmd == 'ls'", "!cmd.contains('rm')"));
    assert!(!implies("cmd.startsWith('ls')", "!cmd.contains('rm')"));
    // A test is an error on a non-string (or a missing path), never false.
    assert!(!implies(
        "has(cmd)",
        "cmd.contains('rm') || !cmd.contains('rm')"
    ));
    assert!(implies(
        "cmd.startsWith('')",
        "cmd.contains('rm') || !cmd.contains('rm')"
    ));
    // Conjunctions and disjunctions around the tests.
    assert!(implies(
        "cmd.contains('rm -rf') && user == 'root'",
        "cmd.contains('rm') && user.startsWith('ro')"
    ));
    assert!(implies(
        "cmd == 'rm' || cmd.endsWith('.rm')",
        "cmd.contains('rm')"
    ));
    assert!(!implies("cmd == 'rm' || cmd == 'ls'", "cmd.contains('rm')"));
}
