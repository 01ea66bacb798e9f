//! Tests of the YAML reader: the seed files, scalar typing by the core schema,
//! spans, aliases and anchors, and every input limit.

use super::*;
use crate::frontend::doc::NodeKind;
use hookc_runtime::limits::{MAX_DOC_DEPTH, MAX_DOC_NODES};

const F: FileId = FileId(0);

fn doc(text: &str) -> Node {
    match parse(text, F) {
        Ok(n) => n,
        Err(d) => panic!("unexpected error {d:?} for {text:?}"),
    }
}

fn err(text: &str) -> Diagnostic {
    match parse(text, F) {
        Ok(n) => panic!("expected an error for {text:?}, got {n:?}"),
        Err(d) => d,
    }
}

fn src<'a>(text: &'a str, node: &Node) -> &'a str {
    &text[node.span.range()]
}

fn kind(text: &str) -> NodeKind {
    doc(&format!("v: {text}\n")).get("v").unwrap().kind.clone()
}

#[test]
fn empty_documents_are_null() {
    for text in ["", "   \n\n", "# just a comment\n", "---\n", "---\n...\n"] {
        assert_eq!(doc(text).kind, NodeKind::Null, "{text:?}");
    }
}

#[test]
fn scalar_spans_cover_their_text() {
    let text =
        "a: plain words   # c\nb: \"dq\"   # c\nc: 'it''s'\nd: &x !!str tagged\n\"k k\": v\n";
    let root = doc(text);
    let map = root.as_map().unwrap();
    let got: Vec<(&str, &str)> = map
        .iter()
        .map(|(k, v)| {
            (
                src(
                    text,
                    &Node {
                        kind: NodeKind::Null,
                        span: k.span,
                    },
                ),
                src(text, v),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("a", "plain words"),
            ("b", "\"dq\""),
            ("c", "'it''s'"),
            ("d", "tagged"),
            ("\"k k\"", "v"),
        ]
    );
    assert_eq!(map[4].0.name, "k k");
    assert_eq!(root.span.range(), 0..text.len() - 1);
}

#[test]
fn spans_are_bytes_after_non_ascii_text() {
    let text = "# héllo wörld ✓\nkey: \"ünï\" # ✓✓\nlist: [é, {ö: ß}]\nafter: plain\n";
    let root = doc(text);
    assert_eq!(src(text, root.get("key").unwrap()), "\"ünï\"");
    let list = root.get("list").unwrap();
    assert_eq!(src(text, list), "[é, {ö: ß}]");
    let items = list.as_seq().unwrap();
    assert_eq!(src(text, &items[0]), "é");
    assert_eq!(src(text, &items[1]), "{ö: ß}");
    let (k, v) = &items[1].as_map().unwrap()[0];
    assert_eq!(&text[k.span.range()], "ö");
    assert_eq!(src(text, v), "ß");
    assert_eq!(src(text, root.get("after").unwrap()), "plain");
    // Past a long non-ASCII run (more than one checkpoint stride).
    let long = format!("# {}\nx: y\n", "é".repeat(300));
    let root = doc(&long);
    assert_eq!(src(&long, root.get("x").unwrap()), "y");
}

#[test]
fn collection_spans() {
    let text = "m:\n  a: 1\n  b: [x, y]   \ns:\n- one\n- two\nt: &t\n  - 3\nu: {p: q}\n";
    let root = doc(text);
    assert_eq!(src(text, root.get("m").unwrap()), "a: 1\n  b: [x, y]");
    assert_eq!(src(text, root.get("s").unwrap()), "- one\n- two");
    assert_eq!(src(text, root.get("t").unwrap()), "- 3");
    assert_eq!(src(text, root.get("u").unwrap()), "{p: q}");
}

#[test]
fn block_scalars_are_strings_spanning_the_header() {
    let text = "a: |\n  line one\n  line two\n\nb: >- # folded\n  x\n  y\nc: !!str |\n  t\n";
    let root = doc(text);
    let a = root.get("a").unwrap();
    assert_eq!(a.as_str(), Some("line one\nline two\n"));
    assert_eq!(src(text, a), "|\n  line one\n  line two");
    let b = root.get("b").unwrap();
    assert_eq!(b.as_str(), Some("x y"));
    assert_eq!(src(text, b), ">- # folded\n  x\n  y");
    assert_eq!(src(text, root.get("c").unwrap()), "|\n  t");
}

/// Every span of the tree, keys included.
fn all_spans(node: &Node, out: &mut Vec<Span>) {
    out.push(node.span);
    match &node.kind {
        NodeKind::Seq(items) => items.iter().for_each(|n| all_spans(n, out)),
        NodeKind::Map(entries) => {
            for (k, v) in entries {
                out.push(k.span);
                all_spans(v, out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_span_is_a_slice_of_the_text() {
    let docs = [
        include_str!("../../../../../examples/thread-hooks/hooks.yaml"),
        include_str!("../../../../../examples/thread-hooks/directive_hooks.yaml"),
        "[a: b, {c, d}, ? e : f]",
        "a: &x\n  - ü\n  - [ö]\nb: *x\nc: ! é\nd:\n  ? é\n  : |-\n    ü\ne: !!str\n",
        "- - - x\n  - y\n- 'z'  \n-\n- \"a\\\"b\"\n",
    ];
    for text in docs {
        let mut spans = Vec::new();
        all_spans(&doc(text), &mut spans);
        for span in spans {
            assert!(span.start <= span.end, "{span:?} in {text:?}");
            assert!(text.get(span.range()).is_some(), "{span:?} in {text:?}");
        }
    }
    let text = "[a: b, {c, d}]";
    let root = doc(text);
    let items = root.as_seq().unwrap();
    assert_eq!(items[0].get("a").unwrap().as_str(), Some("b"));
    assert_eq!(src(text, &items[1]), "{c, d}");
    assert_eq!(items[1].get("d").unwrap().kind, NodeKind::Null);
}

#[test]
fn crlf_and_bom() {
    let text = "\u{feff}a: b\r\nc:\r\n  - \"d\"\r\n";
    let root = doc(text);
    assert_eq!(src(text, root.get("a").unwrap()), "b");
    let c = root.get("c").unwrap();
    assert_eq!(src(text, c), "- \"d\"");
    assert_eq!(src(text, &c.as_seq().unwrap()[0]), "\"d\"");
}

#[test]
fn plain_scalars_follow_the_core_schema() {
    for s in ["~", "null", "Null", "NULL", ""] {
        assert_eq!(kind(s), NodeKind::Null, "{s}");
    }
    for (s, b) in [
        ("true", true),
        ("True", true),
        ("TRUE", true),
        ("false", false),
        ("FALSE", false),
    ] {
        assert_eq!(kind(s), NodeKind::Bool(b), "{s}");
    }
    for (s, i) in [
        ("0", 0),
        ("-12", -12),
        ("+7", 7),
        ("007", 7),
        ("0o17", 15),
        ("0x1F", 31),
    ] {
        assert_eq!(kind(s), NodeKind::Int(i), "{s}");
    }
    assert_eq!(kind("9223372036854775807"), NodeKind::Int(i64::MAX));
    assert_eq!(kind("-9223372036854775808"), NodeKind::Int(i64::MIN));
    for (s, f) in [
        ("1.5", 1.5),
        ("-1e3", -1000.0),
        (".5", 0.5),
        ("1.", 1.0),
        ("+2.5E-1", 0.25),
    ] {
        assert_eq!(kind(s), NodeKind::Float(f), "{s}");
    }
    assert_eq!(kind(".inf"), NodeKind::Float(f64::INFINITY));
    assert_eq!(kind("-.Inf"), NodeKind::Float(f64::NEG_INFINITY));
    assert!(matches!(kind(".NaN"), NodeKind::Float(f) if f.is_nan()));
    for s in [
        "yes", "on", "1.0.0", "0x", "0o8", "1_000", "nan", "inf", "1e", "e3", ".", "tRue", "1.2.3",
    ] {
        assert_eq!(kind(s), NodeKind::Str(s.into()), "{s}");
    }
    for s in ["'1'", "\"true\"", "'~'", "|\n  12\n"] {
        assert!(matches!(kind(s), NodeKind::Str(_)), "{s}");
    }
}

#[test]
fn out_of_range_literals_are_errors() {
    let d = err("v: 9223372036854775808\n");
    assert_eq!(d.code, Code::BadLiteral);
    assert_eq!(
        d.message,
        "integer `9223372036854775808` does not fit in 64 bits"
    );
    assert_eq!(d.span, Some(Span::new(F, 3, 22)));
    assert_eq!(d.node_path.as_deref(), Some("v"));
    assert_eq!(
        err("v: [0xFFFFFFFFFFFFFFFFFF]").node_path.as_deref(),
        Some("v[0]")
    );
    assert_eq!(err("v: 1e999").code, Code::BadLiteral);
    // A quoted big number is a string, and so is a big key.
    assert!(matches!(kind("'9223372036854775808'"), NodeKind::Str(_)));
    assert!(doc("99999999999999999999: x")
        .get("99999999999999999999")
        .is_some());
}

#[test]
fn tags() {
    assert_eq!(kind("!!str 12"), NodeKind::Str("12".into()));
    assert_eq!(kind("!!int '12'"), NodeKind::Int(12));
    assert_eq!(kind("!!float 3"), NodeKind::Float(3.0));
    assert_eq!(kind("!!float 2.5"), NodeKind::Float(2.5));
    assert_eq!(kind("!!bool \"true\""), NodeKind::Bool(true));
    assert_eq!(kind("!!null ''"), NodeKind::Null);
    assert_eq!(kind("! 12"), NodeKind::Str("12".into()));
    assert!(matches!(kind("!!map {a: 1}"), NodeKind::Map(_)));
    assert!(matches!(kind("!!seq [1]"), NodeKind::Seq(_)));
    let d = err("v: !!int abc\n");
    assert_eq!(d.code, Code::BadLiteral);
    assert_eq!(d.message, "`abc` is not an integer (tag `!!int`)");
    assert_eq!(err("v: !!bool 1").code, Code::BadLiteral);
    assert_eq!(err("v: !!null x").code, Code::BadLiteral);
    assert_eq!(err("v: !!float x").code, Code::BadLiteral);
    assert_eq!(err("v: !!str [1]").code, Code::BadLiteral);
    let d = err("v: !foo x\n");
    assert_eq!(d.code, Code::YamlSyntax);
    assert_eq!(d.message, "unsupported tag `!foo`");
    assert_eq!(d.span, Some(Span::new(F, 8, 9)));
    assert_eq!(
        err("v: !!binary eA==").message,
        "unsupported tag `!!binary`"
    );
    assert_eq!(err("v: !!set {a}").message, "unsupported tag `!!set`");
    assert_eq!(
        err("!!int a: b").code,
        Code::BadLiteral,
        "a tagged key is checked"
    );
    assert!(doc("!!str a: b").get("a").is_some());
}

#[test]
fn aliases_expand() {
    let text = "base: &b {x: 1, y: [2]}\nname: &n hello\ncopy: *b\nnames: [*n, *n]\n*n : keyed\n";
    let root = doc(text);
    assert_eq!(root.get("copy"), root.get("base"));
    let names = root.get("names").unwrap().as_seq().unwrap();
    assert_eq!(names[0].as_str(), Some("hello"));
    assert_eq!(root.get("hello").unwrap().as_str(), Some("keyed"));
    // The aliased key is written where the alias is.
    let (k, _) = root.as_map().unwrap().last().unwrap();
    assert_eq!(&text[k.span.range()], "*n");
}

#[test]
fn bad_aliases() {
    let d = err("a: *nope\n");
    assert_eq!(d.code, Code::YamlSyntax);
    assert_eq!(d.message, "unknown alias `*nope`");
    assert_eq!(d.span, Some(Span::new(F, 3, 8)));
    let d = err("a: &r [1, *r]\n");
    assert_eq!(d.code, Code::YamlSyntax);
    assert_eq!(d.node_path.as_deref(), Some("a[1]"));
    let d = err("a: &m {k: v}\n*m : x\n");
    assert_eq!(d.code, Code::WrongShape);
}

#[test]
fn billion_laughs_fails_fast() {
    let mut text = String::from("l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..=9 {
        let refs = vec![format!("*l{}", i - 1); 10].join(", ");
        text.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
    }
    let started = std::time::Instant::now();
    let d = err(&text);
    assert_eq!(d.code, Code::TooLarge);
    assert!(d.message.contains("alias bomb"), "{}", d.message);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    // Deep rather than wide: an alias may not push nesting past the limit.
    let mut deep = String::from("a0: &a0 [x]\n");
    for i in 1..70 {
        deep.push_str(&format!("a{i}: &a{i} [[*a{}]]\n", i - 1));
    }
    assert_eq!(err(&deep).code, Code::TooDeep);
}

#[test]
fn too_many_plain_nodes() {
    let text = format!("[{}]", "1,".repeat(MAX_DOC_NODES + 1));
    let d = err(&text);
    assert_eq!(d.code, Code::TooLarge);
    assert!(!d.message.contains("alias"));
}

#[test]
fn duplicate_keys() {
    let d = err("a: 1\nb:\n  c: 2\n  c: 3\n");
    assert_eq!(d.code, Code::DuplicateKey);
    assert_eq!(d.message, "key `c` is already defined on line 3");
    assert_eq!(d.span, Some(Span::new(F, 17, 18)));
    assert_eq!(d.node_path.as_deref(), Some("b.c"));
    assert_eq!(err("{a: 1, 'a': 2}").code, Code::DuplicateKey);
    // Past the linear scan.
    let many: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
    assert_eq!(doc(&many).as_map().unwrap().len(), 40);
    let d = err(&format!("{many}k7: again\n"));
    assert_eq!(d.code, Code::DuplicateKey);
    assert_eq!(d.message, "key `k7` is already defined on line 8");
}

#[test]
fn complex_keys_are_rejected() {
    let d = err("? [a, b]\n: c\n");
    assert_eq!(d.code, Code::WrongShape);
    assert_eq!(d.message, "a mapping key must be a scalar, found a list");
    assert_eq!(err("{? {a: b} : c}").code, Code::WrongShape);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for n in [MAX_DOC_DEPTH + 1, 100_000] {
        let text = format!("{}{}", "[".repeat(n), "]".repeat(n));
        let d = err(&text);
        assert_eq!(d.code, Code::TooDeep);
    }
    let ok = format!("{}{}", "[".repeat(MAX_DOC_DEPTH), "]".repeat(MAX_DOC_DEPTH));
    assert!(doc(&ok).as_seq().is_some());
    let text = format!("{}x\n", "- ".repeat(100_000));
    assert_eq!(err(&text).code, Code::TooDeep);
    let text = "{a: ".repeat(100_000);
    assert_eq!(err(&text).code, Code::TooDeep);
    let text: String = (0..200).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
    assert_eq!(err(&text).code, Code::TooDeep);
}

#[test]
fn one_document_only() {
    let d = err("a: 1\n---\nb: 2\n");
    assert_eq!(d.code, Code::YamlSyntax);
    assert_eq!(d.message, "only one YAML document per file");
    assert_eq!(d.span, Some(Span::new(F, 5, 8)));
    assert!(parse("---\na: 1\n...\n", F).is_ok());
}

#[test]
fn syntax_errors_point_at_the_problem() {
    let d = err("a: [b\n");
    assert_eq!(d.code, Code::YamlSyntax);
    assert!(!d.message.contains("line"), "{}", d.message);
    assert_eq!(d.span.map(|s| s.start), Some(6));
    let d = err("a: b\n c: d\n");
    assert_eq!(d.code, Code::YamlSyntax);
    let d = err("é: \"x\n");
    assert_eq!(d.code, Code::YamlSyntax);
    let d = err("a: 'unterminated");
    assert_eq!(d.code, Code::YamlSyntax);
}

#[test]
fn too_large_input() {
    let text = " ".repeat(MAX_INPUT_BYTES + 1);
    assert_eq!(err(&text).code, Code::TooLarge);
}

#[test]
fn origins() {
    let text = "a: x == 1\nb: 'y > 2'\nc: \"z\\t\"\nd: 'it''s'\ne: >\n  f\nn: 3\n";
    let root = doc(text);
    let origin = |k: &str| origin_of(text, root.get(k).unwrap());
    assert_eq!(origin("a"), Origin::Exact { file: F, base: 3 });
    assert_eq!(origin("b"), Origin::Exact { file: F, base: 14 });
    for k in ["c", "d", "e", "n"] {
        assert_eq!(origin(k), Origin::Whole(root.get(k).unwrap().span), "{k}");
    }
    // Non-ASCII before the scalar: the base is a byte offset.
    let text = "é: ok\nw: a.b == 'ü'\n";
    let root = doc(text);
    let Origin::Exact { base, .. } = origin_of(text, root.get("w").unwrap()) else {
        panic!("not exact");
    };
    assert_eq!(&text[base as usize..], "a.b == 'ü'\n");
}

#[test]
fn block_structure_errors_get_an_indentation_hint() {
    let block = "check this line's indentation against the lines above";
    for (text, parser_says, hint) in [
        // A key indented less than its siblings.
        ("a:\n  b: 1\n c: 2\n", "did not find expected key", block),
        // A hook's key indented less than the hook's other keys.
        (
            "hooks:\n  - id: a\n    event: error\n   action: {type: abort}\n",
            "did not find expected '-' indicator",
            block,
        ),
        // A key where a value continues.
        (
            "hooks:\n  - id: a\n    event: error\n      action: x\n",
            "mapping values are not allowed",
            "quote a value that contains `: `",
        ),
        ("hooks:\n\t- id: a\n", "tab", "indent with spaces"),
    ] {
        let d = err(text);
        assert_eq!(d.code, Code::YamlSyntax, "{text}");
        assert!(d.message.contains(parser_says), "{text}: {}", d.message);
        let help = d.help.unwrap_or_default();
        assert!(help.contains(hint), "{text}: {} / {help}", d.message);
    }
    // Other syntax errors get no such hint.
    let d = err("a: \"unterminated\n");
    assert_eq!(d.code, Code::YamlSyntax);
    assert_eq!(d.help, None, "{}", d.message);
}
