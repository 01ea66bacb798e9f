//! Unit tests of `${path}` templates: parsing, escapes, spans.

use super::*;
use crate::span::FileId;
use hookc_runtime::bytecode::path::{Path, Segment};

/// No local names in scope.
const NO_LOCALS: [&[crate::resolve::ast_to_ir::LocalDef]; 2] = [&[], &[]];

const F: FileId = FileId(0);

fn exact(base: u32) -> Origin {
    Origin::Exact { file: F, base }
}

fn template(text: &str, paths: &mut PathTable) -> Template {
    match parse(text, exact(0), paths, NO_LOCALS) {
        Ok(Parsed::Template(t)) => t,
        other => panic!("expected a template for {text:?}, got {other:?}"),
    }
}

fn error(text: &str) -> Diagnostic {
    match parse(text, exact(100), &mut PathTable::new(), NO_LOCALS) {
        Err(d) => d,
        other => panic!("expected an error for {text:?}, got {other:?}"),
    }
}

fn field_path(root: &str, fields: &[&str]) -> Path {
    fields.iter().fold(Path::root(root), |p, f| {
        p.child(Segment::Field((*f).to_owned()))
    })
}

#[test]
fn strings_without_references_are_literals() {
    let mut paths = PathTable::new();
    let lit = |t: &str, paths: &mut PathTable| parse(t, exact(0), paths, NO_LOCALS).unwrap();
    assert_eq!(lit("", &mut paths), Parsed::Literal(String::new()));
    assert_eq!(
        lit("plain $5 {x}", &mut paths),
        Parsed::Literal("plain $5 {x}".into())
    );
    assert_eq!(
        lit("cost $${amount}", &mut paths),
        Parsed::Literal("cost ${amount}".into())
    );
    assert_eq!(lit("$$${", &mut paths), Parsed::Literal("$${".into()));
    assert_eq!(lit("a$", &mut paths), Parsed::Literal("a$".into()));
    assert!(paths.is_empty());
}

#[test]
fn literal_text_and_escape() {
    assert_eq!(literal_text("a $${b}").as_deref(), Some("a ${b}"));
    assert_eq!(literal_text(""), Some(String::new()));
    assert_eq!(literal_text("a ${b}"), None);
    assert_eq!(literal_text("a ${b"), None);
    assert_eq!(escape_literal("x ${y} $z"), "x $${y} $z");
}

#[test]
fn scanning_finds_references_and_escapes() {
    let pieces = scan("a $${b} ${c.d} $ ${e['}']}", exact(0)).unwrap();
    let shape: Vec<String> = pieces
        .iter()
        .map(|p| match p {
            ScanPiece::Lit(s) => format!("lit:{s}"),
            ScanPiece::Ref { inner, inner_start } => format!("ref:{inner}@{inner_start}"),
        })
        .collect();
    assert_eq!(
        shape,
        ["lit:a ${b} ", "ref:c.d@10", "lit: $ ", "ref:e['}']@19"]
    );
}

#[test]
fn closing_brace_skips_quoted_keys() {
    assert_eq!(find_close("a['}'] }", 0), Ok(7));
    assert_eq!(find_close(r#"a["\"}"]}"#, 0), Ok(8));
    assert_eq!(find_close(r"a[r'\']}", 0), Ok(7));
    assert_eq!(find_close("a['}", 0), Err(true));
    assert_eq!(find_close("a.b", 0), Err(false));
}

#[test]
fn unterminated_and_empty_references_are_errors() {
    let d = error("x ${error.code");
    assert_eq!(d.code, Code::BadTemplate);
    assert_eq!(d.message, "unterminated `${` in template");
    assert_eq!(d.span, Some(Span::new(F, 102, 114)));
    assert_eq!(
        d.help.as_deref(),
        Some("close the reference with `}`, or write `$${` for a literal `${`")
    );

    let d = error("${a['}x");
    assert_eq!(d.message, "unterminated `${` in template");
    assert_eq!(
        d.notes,
        ["a quoted key inside the reference is not closed either"]
    );

    let d = error("ab ${ } cd");
    assert_eq!(d.code, Code::BadTemplate);
    assert_eq!(d.message, "empty `${}` in template");
    assert_eq!(d.span, Some(Span::new(F, 103, 107)));
    assert_eq!(
        d.help.as_deref(),
        Some("write a path inside, as in `${error.message}`, or write `$${` for a literal `${`")
    );

    // Whole-scalar origins point at the scalar.
    let whole = Span::new(F, 5, 20);
    let d = parse(
        "${}",
        Origin::Whole(whole),
        &mut PathTable::new(),
        NO_LOCALS,
    )
    .unwrap_err();
    assert_eq!(d.span, Some(whole));
}

// The tests below need the expression parser (`crate::syntax::parse`).

#[test]
fn whole_template_keeps_one_path() {
    let mut paths = PathTable::new();
    let t = template("${event.tokens_used}", &mut paths);
    assert!(t.is_whole());
    let id = t.whole_path().unwrap();
    assert_eq!(paths.get(id), Some(&field_path("event", &["tokens_used"])));
    let refs: Vec<_> = t.refs().collect();
    assert_eq!(refs, [(id, Span::new(F, 2, 19))]);
}

#[test]
fn embedded_templates_split_into_parts() {
    let mut paths = PathTable::new();
    let t = template(
        "err ${error.code}: ${error.message}${error.code} $${x}",
        &mut paths,
    );
    assert!(!t.is_whole());
    assert_eq!(t.whole_path(), None);
    let code = paths.intern(field_path("error", &["code"]));
    let message = paths.intern(field_path("error", &["message"]));
    assert_eq!(
        t.parts(),
        [
            TemplatePiece::Lit("err ".into()),
            TemplatePiece::Path(code),
            TemplatePiece::Lit(": ".into()),
            TemplatePiece::Path(message),
            TemplatePiece::Path(code),
            TemplatePiece::Lit(" ${x}".into()),
        ]
    );
    assert_eq!(t.refs().count(), 3);
}

#[test]
fn quoted_keys_and_indexes() {
    let mut paths = PathTable::new();
    let t = template("${error.headers['retry-after']}", &mut paths);
    let id = t.whole_path().unwrap();
    assert_eq!(
        paths.get(id),
        Some(&field_path("error", &["headers", "retry-after"]))
    );

    let t = template("<${a['x}y'][0]}>", &mut paths);
    let expected = field_path("a", &["x}y"]).child(Segment::Index(0));
    assert_eq!(
        t.parts().get(1),
        Some(&TemplatePiece::Path(paths.intern(expected)))
    );
}

#[test]
fn spans_of_references_follow_the_origin() {
    let mut paths = PathTable::new();
    let t = match parse("ab ${ x.y }", exact(50), &mut paths, NO_LOCALS).unwrap() {
        Parsed::Template(t) => t,
        other => panic!("{other:?}"),
    };
    let (_, span) = t.refs().next().unwrap();
    assert_eq!(span, Span::new(F, 56, 59));
}

#[test]
fn bad_references_are_reported_with_context() {
    let d = error("${a.nosuch()}");
    assert_eq!(d.code, Code::UnknownFunction);
    assert!(
        d.notes
            .iter()
            .any(|n| n == "in the template reference `${a.nosuch()}`"),
        "{d:?}"
    );
    // At the method, inside the string (which starts at offset 100).
    assert_eq!(d.span.map(|s| s.start), Some(104));
    let d = error("${a..b}");
    assert_eq!(d.code, Code::ExprSyntax);
}

/// A shell's parameter expansion in a parameter (`${HOME:-/tmp}` in a
/// command) is E0003 with the `$${` escape as help (issue 35, defect 6).
#[test]
fn shell_expansions_get_the_escape_as_help() {
    for shell in [
        "${HOME:-/tmp}",
        "${X:=1}",
        "${#PATH}",
        "${F%%.txt}",
        "${V:?unset}",
    ] {
        let d = error(&format!("echo {shell}"));
        assert_eq!(d.code, Code::ExprSyntax, "{shell}");
        let help = d.help.unwrap_or_default();
        assert!(
            help.contains(&format!("write `${shell}`")),
            "{shell}: {help}"
        );
    }
    // An expression that fails otherwise gets no such help.
    let d = error("${a..b}");
    assert!(d.help.is_none_or(|h| !h.contains("shell")));
    for not_shell in ["a..b", "1 +", "x == ", "(a"] {
        assert!(!shell_expansion(not_shell), "{not_shell}");
    }
}

#[test]
fn source_text_round_trips() {
    let mut paths = PathTable::new();
    for text in [
        "${event.tokens_used}",
        "err ${error.code}: ${ error.message } $${x} $$${y} $",
        "${error.headers[\"retry-after\"]}!",
        "${a['x}y'][0]}${b}",
        "$5 ${a}",
    ] {
        let t = template(text, &mut paths);
        let again = t.source_text(&paths);
        assert_eq!(template(&again, &mut paths), t, "{text} -> {again}");
        // Canonical text is a fixed point.
        assert_eq!(template(&again, &mut paths).source_text(&paths), again);
    }
    let t = template("h: ${error.headers[\"retry-after\"]} $${", &mut paths);
    assert_eq!(
        t.source_text(&paths),
        "h: ${error.headers['retry-after']} $${"
    );
}

#[test]
fn bare_braces_are_identifier_paths_without_a_dollar() {
    let names = |text: &str| -> Vec<String> {
        bare_braces(text)
            .into_iter()
            .map(|(start, end, name)| {
                assert_eq!(&text[start..end], format!("{{{name}}}"));
                name.to_owned()
            })
            .collect()
    };
    assert_eq!(names("search {current_goal} now"), ["current_goal"]);
    assert_eq!(names("{a.b_2} and {c}"), ["a.b_2", "c"]);
    // Templates, escapes, and what is not an identifier path.
    assert!(names("${a} $${b}").is_empty());
    assert!(names("find . -exec rm {} \\;").is_empty());
    assert!(names(r#"{"a": 1} {a b} {1x} {a..b} {a.} {é}"#).is_empty());
    assert!(names("{unclosed").is_empty());
    // The first `}` closes.
    assert_eq!(names("{{x}}"), ["x"]);
}

#[test]
fn expressions_become_expression_parts() {
    let mut paths = PathTable::new();
    let t = template("n=${count + 1}, ${a ?? 'x'}", &mut paths);
    let texts: Vec<&str> = t.exprs().map(|(e, _)| e.text.as_str()).collect();
    assert_eq!(texts, ["count + 1", "a ?? 'x'"]);
    assert_eq!(t.refs().count(), 0);
    assert!(!t.is_whole());
    let spans: Vec<(u32, u32)> = t.exprs().map(|(_, s)| (s.start, s.end)).collect();
    assert_eq!(spans, [(4, 13), (18, 26)]);
    // A path written as an index is still a path part.
    let t = template("${a['b-c'][0]}", &mut paths);
    assert_eq!(t.refs().count(), 1);
    assert!(t.whole_expr().is_none() && t.is_whole());
    let t = template("${a.size()}", &mut paths);
    assert!(t.whole_expr().is_some() && t.is_whole());
    // Round trip through the canonical text.
    let t = template("x ${a ?? b} $${y} ${c}", &mut paths);
    let again = template(&t.source_text(&paths), &mut paths);
    assert_eq!(t, again);
}

#[test]
fn the_scanner_reads_string_literals_and_braces() {
    let mut paths = PathTable::new();
    let one = |text: &str, paths: &mut PathTable| -> String {
        let t = template(text, paths);
        let texts: Vec<String> = t.exprs().map(|(e, _)| e.text.clone()).collect();
        assert_eq!(texts.len(), 1, "{text}");
        texts[0].clone()
    };
    // `}` inside quotes of either kind, escaped quotes, raw strings and
    // triple-quoted strings do not end the reference.
    assert_eq!(one("${s.split('}')}", &mut paths), "s.split('}')");
    assert_eq!(one(r#"${s + "}\"}"}"#, &mut paths), r#"s + "}\"}""#);
    assert_eq!(
        one(r"${s.matches(r'\}')}!", &mut paths),
        r"s.matches(r'\}')"
    );
    assert_eq!(one("${s + '''a}'b'''}", &mut paths), "s + '''a}'b'''");
    // A `}` that closes a `{` of the expression does not end it either
    // (the parser then rejects the map literal).
    assert_eq!(find_close("{'a': 1}} tail", 0), Ok(8));
    assert_eq!(find_close("'}", 0), Err(true));
    assert_eq!(find_close("a b", 0), Err(false));
}
