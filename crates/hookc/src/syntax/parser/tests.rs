//! Tests of the `when` parser: precedence and associativity, literals, members
//! and calls, spans, every syntax error's message, and the depth bound.

use super::*;
use crate::diag::Code;
use crate::span::FileId;

const ORIGIN: Origin = Origin::Exact {
    file: FileId(0),
    base: 0,
};

fn ok(text: &str) -> Expr {
    match parse(text, ORIGIN) {
        Ok(e) => e,
        Err(d) => panic!("`{text}` failed: {d:?}"),
    }
}

fn err(text: &str) -> Diagnostic {
    match parse(text, ORIGIN) {
        Ok(e) => panic!("`{text}` parsed: {}", show(&e)),
        Err(d) => d,
    }
}

/// The tree with full parentheses around every operator.
fn show(e: &Expr) -> String {
    let list = |items: &[Expr]| items.iter().map(show).collect::<Vec<_>>().join(", ");
    match &e.kind {
        ExprKind::Null => "null".into(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Int(i) => i.to_string(),
        ExprKind::Double(d) => format!("{d:?}"),
        ExprKind::String(s, _) => format!("{s:?}"),
        ExprKind::List(items) => format!("[{}]", list(items)),
        ExprKind::Map(entries) => {
            let entries: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}: {}", show(k), show(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        ExprKind::Ident(name) => name.clone(),
        ExprKind::Select { target, field, .. } => format!("{}.{field}", show(target)),
        ExprKind::Index { target, index } => format!("{}[{}]", show(target), show(index)),
        ExprKind::Call {
            target: Some(t),
            name,
            args,
            ..
        } => format!("{}.{name}({})", show(t), list(args)),
        ExprKind::Call {
            target: None,
            name,
            args,
            ..
        } => format!("{name}({})", list(args)),
        ExprKind::Unary { op, operand, .. } => format!("({}{})", op.symbol(), show(operand)),
        ExprKind::Binary { op, lhs, rhs, .. } => {
            format!("({} {} {})", show(lhs), op.symbol(), show(rhs))
        }
        ExprKind::Cond {
            cond,
            then,
            otherwise,
        } => format!("({} ? {} : {})", show(cond), show(then), show(otherwise)),
    }
}

fn shows(text: &str) -> String {
    show(&ok(text))
}

fn sp(start: usize, end: usize) -> Span {
    Span::new(FileId(0), start, end)
}

/// Asserts code, message, span, label and help of an error.
fn assert_err(
    text: &str,
    code: Code,
    message: &str,
    span: (usize, usize),
    label: &str,
    help: Option<&str>,
) {
    let d = err(text);
    assert_eq!(d.code, code, "code of `{text}`: {d:?}");
    assert_eq!(d.message, message, "message of `{text}`");
    assert_eq!(d.span, Some(sp(span.0, span.1)), "span of `{text}`");
    assert_eq!(d.label.as_deref(), Some(label), "label of `{text}`");
    assert_eq!(d.help.as_deref(), help, "help of `{text}`");
}

// ---- precedence and associativity ------------------------------------------

#[test]
fn precedence_loosest_first() {
    assert_eq!(shows("a || b && c"), "(a || (b && c))");
    assert_eq!(shows("a && b || c"), "((a && b) || c)");
    assert_eq!(shows("a && b == c"), "(a && (b == c))");
    assert_eq!(shows("a == b + c"), "(a == (b + c))");
    assert_eq!(shows("a + b * c"), "(a + (b * c))");
    assert_eq!(shows("a * b + c"), "((a * b) + c)");
    assert_eq!(shows("-a * b"), "((-a) * b)");
    assert_eq!(shows("!a.b"), "(!a.b)");
    assert_eq!(shows("-a[0].f(x)"), "(-a[0].f(x))");
    assert_eq!(shows("a in b || c"), "((a in b) || c)");
    assert_eq!(shows("x in [1, 2] && y"), "((x in [1, 2]) && y)");
    assert_eq!(shows("a ? b || c : d && e"), "(a ? (b || c) : (d && e))");
    assert_eq!(shows("a || b ? c : d"), "((a || b) ? c : d)");
    assert_eq!(shows("(a || b) && c"), "((a || b) && c)");
}

#[test]
fn associativity() {
    assert_eq!(shows("a - b - c"), "((a - b) - c)");
    assert_eq!(shows("a / b * c % d"), "(((a / b) * c) % d)");
    assert_eq!(shows("a || b || c"), "((a || b) || c)");
    assert_eq!(shows("a && b && c"), "((a && b) && c)");
    // Relations are one left-associative level, as in CEL.
    assert_eq!(shows("a < b == c"), "((a < b) == c)");
    assert_eq!(shows("a == b in c"), "((a == b) in c)");
    // The conditional is right-associative.
    assert_eq!(shows("a ? b : c ? d : e"), "(a ? b : (c ? d : e))");
    assert_eq!(shows("!!a"), "(!(!a))");
    assert_eq!(shows("--a"), "(-(-a))");
    assert_eq!(shows("a.b.c[0][1]"), "a.b.c[0][1]");
}

#[test]
fn word_aliases() {
    assert_eq!(shows("a and b or not c"), "((a && b) || (!c))");
    assert_eq!(shows("not not a"), "(!(!a))");
    assert_eq!(shows("not !a"), "(!(!a))");
    assert_eq!(shows("a or b and c"), "(a || (b && c))");
    let e = ok("a and b");
    let ExprKind::Binary { op, op_span, .. } = e.kind else {
        panic!("not binary")
    };
    assert_eq!((op, op_span), (BinaryOp::And, sp(2, 5)));
}

#[test]
fn calls_lists_and_members() {
    assert_eq!(shows("f()"), "f()");
    assert_eq!(shows("has(a.b)"), "has(a.b)");
    assert_eq!(shows("l.exists(x, x > 1)"), "l.exists(x, (x > 1))");
    assert_eq!(shows("'s'.size()"), "\"s\".size()");
    assert_eq!(shows("[]"), "[]");
    assert_eq!(shows("[1, 2,]"), "[1, 2]");
    assert_eq!(shows("[[1], [2, [3]]]"), "[[1], [2, [3]]]");
    assert_eq!(shows("a['k'][0]"), "a[\"k\"][0]");
    assert_eq!(shows("(a).b"), "a.b");
    assert_eq!(shows("a.b(c).d"), "a.b(c).d");
    // Reserved words are fine as parts of longer names.
    assert_eq!(shows("iffy.format"), "iffy.format");
}

// ---- literals ---------------------------------------------------------------

#[test]
fn int_literals_and_sign_folding() {
    assert_eq!(ok("42").kind, ExprKind::Int(42));
    assert_eq!(ok("0x55").kind, ExprKind::Int(0x55));
    assert_eq!(ok("-0x55").kind, ExprKind::Int(-0x55));
    assert_eq!(ok("9223372036854775807").kind, ExprKind::Int(i64::MAX));
    assert_eq!(ok("-9223372036854775808").kind, ExprKind::Int(i64::MIN));
    assert_eq!(ok("-0x8000000000000000").kind, ExprKind::Int(i64::MIN));
    assert_eq!(ok("- 7").kind, ExprKind::Int(-7));
    assert_eq!(ok("-7").span, sp(0, 2));
    // Only a `-` right before the literal folds.
    assert_eq!(shows("--1"), "(--1)");
    assert_eq!(shows("-(1)"), "(-1)");
    assert!(matches!(ok("-(1)").kind, ExprKind::Unary { .. }));
    assert_eq!(shows("!-1"), "(!-1)");
    assert_eq!(shows("1 - -1"), "(1 - -1)");
    assert_eq!(shows("1-1"), "(1 - 1)");
    // As in CEL, the signed literal is the primary of a member chain.
    assert_eq!(shows("-1.f()"), "-1.f()");
}

#[test]
fn double_literals() {
    assert_eq!(ok("1.0").kind, ExprKind::Double(1.0));
    assert_eq!(ok("1e3").kind, ExprKind::Double(1000.0));
    assert_eq!(ok("1.5e-3").kind, ExprKind::Double(0.0015));
    assert_eq!(ok(".99").kind, ExprKind::Double(0.99));
    assert_eq!(ok("-1.5").kind, ExprKind::Double(-1.5));
    assert_eq!(ok("1e+100").kind, ExprKind::Double(1e100));
    let ExprKind::Double(z) = ok("-0.0").kind else {
        panic!("not a double")
    };
    assert!(z == 0.0 && z.is_sign_negative());
}

#[test]
fn other_literals() {
    assert_eq!(ok("true").kind, ExprKind::Bool(true));
    assert_eq!(ok("false").kind, ExprKind::Bool(false));
    assert_eq!(ok("null").kind, ExprKind::Null);
    assert_eq!(string_value(r#""a\tb""#), Some("a\tb".into()));
    assert_eq!(string_value(r"'\''"), Some("'".into()));
    assert_eq!(string_value(r"r'\d+'"), Some(r"\d+".into()));
    assert_eq!(string_value(r#"R"\n""#), Some(r"\n".into()));
    assert_eq!(string_value("'''a\nb'''"), Some("a\nb".into()));
    assert_eq!(string_value(r#""""x"y""""#), Some("x\"y".into()));
    assert_eq!(
        string_value(r"'\u00e9\U0001F431\x41\101'"),
        Some("é🐱AA".into())
    );
    assert_eq!(string_value("'ίσος'"), Some("ίσος".into()));
}

// ---- spans ------------------------------------------------------------------

#[test]
fn spans() {
    let e = ok("error.code == 'E42'");
    assert_eq!(e.span, sp(0, 19));
    let ExprKind::Binary {
        op_span, lhs, rhs, ..
    } = e.kind
    else {
        panic!("not binary")
    };
    assert_eq!(op_span, sp(11, 13));
    assert_eq!(rhs.span, sp(14, 19));
    assert_eq!(lhs.span, sp(0, 10));
    let ExprKind::Select {
        field, field_span, ..
    } = lhs.kind
    else {
        panic!("not select")
    };
    assert_eq!((field.as_str(), field_span), ("code", sp(6, 10)));

    let e = ok(" a.b.startsWith('x') ");
    assert_eq!(e.span, sp(1, 20));
    let ExprKind::Call {
        name_span, target, ..
    } = e.kind
    else {
        panic!("not call")
    };
    assert_eq!(name_span, sp(5, 15));
    assert_eq!(target.map(|t| t.span), Some(sp(1, 4)));

    let e = ok("size(x)");
    assert_eq!(e.span, sp(0, 7));
    assert!(matches!(e.kind, ExprKind::Call { name_span, .. } if name_span == sp(0, 4)));

    // Parentheses belong to the span of what they enclose.
    let e = ok("(a + b) * c");
    let ExprKind::Binary { lhs, .. } = e.kind else {
        panic!("not binary")
    };
    assert_eq!(lhs.span, sp(0, 7));

    let e = ok("!x[0]");
    assert_eq!(e.span, sp(0, 5));
    assert!(matches!(e.kind, ExprKind::Unary { op_span, .. } if op_span == sp(0, 1)));
    assert_eq!(ok("[1, 2]").span, sp(0, 6));
    assert_eq!(ok("a ? b : c").span, sp(0, 9));

    // Byte offsets, shifted by the origin's base.
    let origin = Origin::Exact {
        file: FileId(3),
        base: 100,
    };
    let e = parse("'é' + x", origin).unwrap();
    let ExprKind::Binary { rhs, .. } = e.kind else {
        panic!("not binary")
    };
    assert_eq!(rhs.span, Span::new(FileId(3), 107, 108));
    let whole = Span::new(FileId(1), 5, 9);
    assert_eq!(parse("a.b", Origin::Whole(whole)).unwrap().span, whole);
}

// ---- errors -----------------------------------------------------------------

#[test]
fn syntax_errors() {
    use Code::ExprSyntax as S;
    assert_err(
        "(a]",
        S,
        "expected `)` to close `(`, found `]`",
        (2, 3),
        "expected `)` to close `(`",
        None,
    );
    assert_err(
        "[1, 2",
        S,
        "unexpected end of expression, expected `,` or `]`",
        (5, 5),
        "expected `,` or `]`",
        None,
    );
    assert_err(
        "f(a b)",
        S,
        "expected `,` or `)`, found `b`",
        (4, 5),
        "expected `,` or `)`",
        None,
    );
    assert_err(
        "a[0",
        S,
        "unexpected end of expression, expected `]` to close `[`",
        (3, 3),
        "expected `]` to close `[`",
        None,
    );
    assert_err(
        ")",
        S,
        "expected an expression, found `)`",
        (0, 1),
        "expected an expression",
        None,
    );
    assert_err(
        "a +",
        S,
        "unexpected end of expression, expected an expression",
        (3, 3),
        "expected an expression",
        None,
    );
    assert_err(
        "a b",
        S,
        "unexpected `b` after a complete expression",
        (2, 3),
        "expected an operator or the end of the expression",
        None,
    );
    assert_err(
        "  ",
        S,
        "empty expression",
        (2, 2),
        "expected an expression",
        None,
    );
    assert_err(
        "a = b",
        S,
        "`=` is not an operator",
        (2, 3),
        "assignment-like `=`",
        Some("use `==` to compare"),
    );
    assert_err(
        "a & b",
        S,
        "`&` is not an operator",
        (2, 3),
        "single `&`",
        Some("use `&&` or `and`"),
    );
    assert_err(
        "a | b",
        S,
        "`|` is not an operator",
        (2, 3),
        "single `|`",
        Some("use `||` or `or`"),
    );
    assert_err(
        "if",
        S,
        "`if` is a reserved word",
        (0, 2),
        "reserved word used as a name",
        Some("CEL reserves this word: it cannot name a variable or function; select a field of that name with brackets, e.g. `x['if']`"),
    );
    assert_err(
        "a.while",
        S,
        "expected a field name after `.`, found `while`",
        (2, 7),
        "expected a field name after `.`",
        Some("`while` is a keyword; select the field with brackets: `['while']`"),
    );
    assert_err(
        "a.in",
        S,
        "expected a field name after `.`, found `in`",
        (2, 4),
        "expected a field name after `.`",
        Some("`in` is a keyword; select the field with brackets: `['in']`"),
    );
    assert_err(
        ".a.b",
        S,
        "leading-dot names (`.a.b`) are not supported",
        (0, 1),
        "leading `.`",
        Some("write the name without the leading `.`"),
    );
    assert_err(
        "a // note",
        S,
        "comments are not supported in expressions",
        (2, 9),
        "comment",
        Some("remove the `//` comment"),
    );
    assert_err(
        "a.`b-c`",
        S,
        "backtick-quoted names are not supported",
        (2, 3),
        "backtick",
        Some("select a field whose name is not an identifier with brackets, e.g. `a['b-c']`"),
    );
    assert_err(
        "'abc",
        S,
        "unterminated string literal",
        (0, 1),
        "this string is never closed",
        None,
    );
    assert_err(
        "'abc\n' == x",
        S,
        "unterminated string literal",
        (0, 1),
        "this string is never closed",
        Some("a quoted string must end on the line it starts on; write `\\n` for a line break, or use a triple-quoted string `'''...'''`"),
    );
    assert_err(
        "x + r'''abc",
        S,
        "unterminated string literal",
        (4, 8),
        "this string is never closed",
        None,
    );
    assert_err(
        "a # b",
        S,
        "unexpected character `#`",
        (2, 3),
        "not part of any token",
        None,
    );
    assert_err(
        "café",
        S,
        "unexpected character `é`",
        (3, 5),
        "not part of any token",
        None,
    );
    assert_err(
        "a ? b ? c : d : e",
        S,
        "expected `:` of the conditional `?:`, found `?`",
        (6, 7),
        "expected `:` of the conditional `?:`",
        Some("a conditional in the middle operand needs parentheses: `a ? (b ? c : d) : e`"),
    );
    assert_err(
        "!-x",
        S,
        "`-` cannot directly follow `!`",
        (1, 2),
        "mixed unary operators",
        Some("a run of prefix operators must repeat one operator; add parentheses: `!(-x)`"),
    );
    assert_err(
        "-!x",
        S,
        "`!` cannot directly follow `-`",
        (1, 2),
        "mixed unary operators",
        Some("a run of prefix operators must repeat one operator; add parentheses: `-(!x)`"),
    );
    assert_err(
        "f(a,)",
        S,
        "expected an expression, found `)`",
        (4, 5),
        "expected an expression",
        Some("remove the trailing `,`: argument lists do not take one"),
    );
    assert_err(
        "[,]",
        S,
        "expected an expression, found `,`",
        (1, 2),
        "expected an expression",
        None,
    );
    assert_err(
        "a.?b",
        S,
        "expected a field name after `.`, found `?`",
        (2, 3),
        "expected a field name after `.`",
        Some("optional field selection `.?` is not supported"),
    );
    assert_err(
        "x not in l",
        S,
        "unexpected `not` after a complete expression",
        (2, 5),
        "expected an operator or the end of the expression",
        Some("`not` is a prefix operator; for \"not in\" write `!(x in list)`"),
    );
    assert_err(
        "a == 'x' 'y'",
        S,
        "unexpected a string literal after a complete expression",
        (9, 12),
        "expected an operator or the end of the expression",
        None,
    );
}

#[test]
fn first_error_in_source_order() {
    // The syntax error comes before the bad character, so it is reported.
    assert_eq!(
        err("a b #").message,
        "unexpected `b` after a complete expression"
    );
    assert_eq!(err("a # b c").message, "unexpected character `#`");
}

#[test]
fn literal_errors() {
    use Code::BadLiteral as L;
    let range = "ints range from -9223372036854775808 to 9223372036854775807; write a double such as `1e19` for larger numbers";
    assert_err(
        "9223372036854775808",
        L,
        "integer literal `9223372036854775808` is out of range",
        (0, 19),
        "does not fit in a 64-bit signed integer",
        Some(range),
    );
    assert_err(
        "-9223372036854775809",
        L,
        "integer literal `-9223372036854775809` is out of range",
        (0, 20),
        "does not fit in a 64-bit signed integer",
        Some(range),
    );
    assert_err(
        "x + 99999999999999999999999",
        L,
        "integer literal `99999999999999999999999` is out of range",
        (4, 27),
        "does not fit in a 64-bit signed integer",
        Some(range),
    );
    assert_err(
        "0x8000000000000000",
        L,
        "integer literal `0x8000000000000000` is out of range",
        (0, 18),
        "does not fit in a 64-bit signed integer",
        Some(range),
    );
    assert_err(
        "1e999",
        L,
        "double literal `1e999` is out of range",
        (0, 5),
        "too large for a 64-bit double",
        None,
    );
    assert_err(
        "1u",
        L,
        "unsigned integer literals are not supported",
        (0, 2),
        "unsigned integer literal",
        Some("unsigned integers are not supported; write `1`"),
    );
    assert_err(
        "x == 0x1fU",
        L,
        "unsigned integer literals are not supported",
        (5, 10),
        "unsigned integer literal",
        Some("unsigned integers are not supported; write `0x1f`"),
    );
    assert_err(
        "b'abc'",
        L,
        "bytes literals are not supported",
        (0, 6),
        "bytes literal",
        Some("use a string literal (without the `b` prefix)"),
    );
    let d = err(r"x == 'a\qb'");
    assert_eq!(
        (d.code, d.message.as_str()),
        (L, r"invalid escape sequence `\q`")
    );
    assert_eq!(
        (d.span, d.label.as_deref()),
        (Some(sp(7, 9)), Some("unknown escape"))
    );
    assert!(d.help.is_some_and(|h| h.contains("raw string")));
    let d = err(r"'\uDFFF'");
    assert_eq!(
        (d.code, d.message.as_str(), d.span),
        (
            L,
            r"escape `\uDFFF` is not a Unicode scalar value: it is a surrogate",
            Some(sp(1, 7))
        )
    );
    let d = err(r"'\U00110000'");
    assert_eq!((d.code, d.span), (L, Some(sp(1, 11))));
    let d = err(r"'\x4'");
    assert_eq!(
        (d.code, d.label.as_deref()),
        (L, Some("expected 2 hex digits"))
    );
}

// ---- depth ------------------------------------------------------------------

const HUGE: usize = 100_000;

fn assert_too_deep(text: &str) {
    let d = err(text);
    assert_eq!(d.code, Code::TooDeep, "{}", d.message);
    assert_eq!(d.message, "expression nests more than 128 levels deep");
}

#[test]
fn depth_limit_boundary() {
    let n = MAX_EXPR_DEPTH;
    // Parentheses: n - 1 pairs around a leaf make a tree n levels high.
    ok(&format!("{}a{}", "(".repeat(n - 1), ")".repeat(n - 1)));
    assert_too_deep(&format!("{}a{}", "(".repeat(n), ")".repeat(n)));
    ok(&format!("{}a", "!".repeat(n - 1)));
    assert_too_deep(&format!("{}a", "!".repeat(n)));
    ok(&format!("{}a", "-".repeat(n - 1)));
    // n terms of a left-associative chain.
    ok(&vec!["a"; n].join(" + "));
    assert_too_deep(&vec!["a"; n + 1].join(" + "));
    ok(&format!("a{}", ".b".repeat(n - 1)));
    assert_too_deep(&format!("a{}", ".b".repeat(n)));
}

/// One test per hostile input, so that a failure names its input.
macro_rules! hostile {
    ($($name:ident: $text:expr;)*) => {$(
        #[test]
        fn $name() {
            let open = |s: &str| s.repeat(HUGE);
            let _ = &open;
            assert_too_deep(&$text(open));
        }
    )*};
}

hostile! {
    deep_parens: |o: fn(&str) -> String| format!("{}a{}", o("("), o(")"));
    deep_open_parens: |o: fn(&str) -> String| o("(");
    deep_bangs: |o: fn(&str) -> String| format!("{}x", o("!"));
    deep_nots: |o: fn(&str) -> String| format!("{}x", o("not "));
    deep_minuses: |o: fn(&str) -> String| format!("{}x", o("-"));
    deep_minuses_literal: |o: fn(&str) -> String| format!("{}1", o("-"));
    deep_lists: |o: fn(&str) -> String| format!("{}1{}", o("["), o("]"));
    deep_calls: |o: fn(&str) -> String| format!("{}1", o("f("));
    deep_methods: |o: fn(&str) -> String| format!("{}1", o("a.f("));
    deep_indexes: |o: fn(&str) -> String| format!("{}1", o("a["));
    deep_conditionals: |o: fn(&str) -> String| format!("{}c", o("a ? b : "));
    deep_middle_conditionals: |o: fn(&str) -> String| format!("{}c", o("a ? ("));
    deep_mixed: |o: fn(&str) -> String| format!("{}c", o("a + -("));
    long_sum: |_o: fn(&str) -> String| vec!["a"; HUGE].join(" + ");
    long_or: |_o: fn(&str) -> String| vec!["a"; HUGE].join(" || ");
    long_relation: |_o: fn(&str) -> String| vec!["a"; HUGE].join(" < ");
    long_select: |o: fn(&str) -> String| format!("a{}", o(".b"));
    long_index: |o: fn(&str) -> String| format!("a{}", o("[0]"));
    long_method_chain: |o: fn(&str) -> String| format!("a{}", o(".f()"));
}

/// The deepest accepted inputs of every shape parse on a thread with the
/// default 2 MiB stack of spawned threads, even in a debug build (about
/// 700 KiB at the time of writing).
#[test]
fn deepest_inputs_fit_a_small_stack() {
    let n = MAX_EXPR_DEPTH - 1;
    let inputs = [
        format!("{}1{}", "f(".repeat(n), ")".repeat(n)),
        format!("{}1{}", "a.f(".repeat(n), ")".repeat(n)),
        format!("{}1{}", "(".repeat(n), ")".repeat(n)),
        format!("{}1{}", "[".repeat(n), "]".repeat(n)),
        format!("{}1{}", "a[".repeat(n), "]".repeat(n)),
        format!("{}1", "a ? b : ".repeat(n)),
        format!("{}1{}", "-(".repeat(n / 2), ")".repeat(n / 2)),
        format!(
            "{}1{}",
            "a || (b && (c == (d + (e * (".repeat(n / 11),
            ")))))".repeat(n / 11)
        ),
    ];
    let worker = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            inputs
                .iter()
                .map(|text| parse(text, ORIGIN).map(|_| ()).map_err(|d| d.message))
                .collect::<Vec<_>>()
        });
    let results = worker.unwrap().join().unwrap();
    assert!(results.iter().all(Result::is_ok), "{results:?}");
}

#[test]
fn wide_is_fine() {
    let wide = format!("[{}]", vec!["1"; HUGE].join(", "));
    assert!(matches!(ok(&wide).kind, ExprKind::List(l) if l.len() == HUGE));
    let args = format!("f({})", vec!["a"; HUGE].join(", "));
    assert!(matches!(ok(&args).kind, ExprKind::Call { args, .. } if args.len() == HUGE));
}

/// The value of a string literal expression.
fn string_value(text: &str) -> Option<String> {
    match ok(text).kind {
        ExprKind::String(s, _) => Some(s),
        _ => None,
    }
}

#[test]
fn string_styles() {
    use crate::syntax::ast::StrStyle;
    let style = |text: &str| match ok(text).kind {
        ExprKind::String(_, style) => Some(style),
        _ => None,
    };
    assert_eq!(style("'a'"), Some(StrStyle::PLAIN));
    let raw_double = StrStyle {
        raw: true,
        quote: '"',
        triple: false,
    };
    assert_eq!(style(r#"r"\d""#), Some(raw_double));
    let triple = StrStyle {
        raw: false,
        quote: '\'',
        triple: true,
    };
    assert_eq!(style("'''a'''"), Some(triple));
    assert_eq!(style("''''''"), Some(triple));
}

#[test]
fn an_escape_error_in_a_pattern_shows_the_raw_string() {
    let help = |text: &str| err(text).help.unwrap_or_default();
    assert_eq!(
        help(r#"p.matches("\d+\.txt")"#),
        r#"a pattern keeps its backslashes in a raw string: write `r"\d+\.txt"`"#
    );
    assert!(help(r"glob(p, 'a\*')").ends_with(r"write `r'a\*'`"));
    // A doubled backslash beside it means another thing raw: no spelling.
    assert!(help(r"p.matches('\\.\d')").ends_with("or double each backslash"));
    // Not a pattern: the list of escapes.
    assert!(help(r"p.startsWith('\d')").starts_with("the escapes are"));
    assert!(help(r"p.matches(x.startsWith('\d'))").starts_with("the escapes are"));
}
