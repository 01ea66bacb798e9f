//! W0015: a regex or glob written with doubled backslashes.
//!
//! A regex or glob escapes with backslashes (`\d`, `\.`, `\*`), and so does
//! a non-raw string literal: `matches("\\d+\\.txt")` has to double each
//! one, which is hard to read and easy to get wrong (a single `\b` is a
//! backspace, W0013; a single `\d` is an invalid escape, E0005). The
//! warning shows the pattern in the spelling that keeps backslashes as
//! written, verbatim, for the user to paste:
//!
//! - in a `when` expression, the raw string (`r"\d+\.txt"`), in the quotes
//!   the literal was written with when it can;
//! - in a YAML condition tree (`op: regex`, a `matches` schema's
//!   `pattern`), a double-quoted YAML scalar holding `\\` becomes a
//!   single-quoted one (`'\d+\.txt'`), where YAML keeps backslashes. Plain,
//!   single-quoted and block scalars already keep them and are never
//!   reported.
//!
//! A pattern holding a control character is left to W0013 (no raw string
//! can show it).

use crate::diag::{Code, Diagnostic};
use crate::span::Span;
use crate::syntax::ast::StrStyle;

/// Whether a pattern's value calls for the lint: it holds a backslash (in a
/// non-raw string, only an escape makes one) and nothing a raw spelling
/// cannot show.
pub fn has_doubled_backslashes(value: &str) -> bool {
    value.contains('\\') && !value.chars().any(|c| c.is_control() && c != '\t')
}

/// `value` as a raw `when` string literal: in `style`'s quotes when the value
/// allows, else the other quote, else triple-quoted. `None` when no raw
/// string holds it (a raw string has no escapes, so it cannot hold its own
/// closing quote).
pub fn raw_literal(value: &str, style: StrStyle) -> Option<String> {
    let other = if style.quote == '"' { '\'' } else { '"' };
    let single_line = !value.contains(['\n', '\r']);
    [
        (style.quote, style.triple),
        (other, style.triple),
        (style.quote, true),
        (other, true),
    ]
    .into_iter()
    .find(|&(quote, triple)| !value.contains(quote) && (triple || single_line))
    .map(|(quote, triple)| {
        let q = if triple {
            quote.to_string().repeat(3)
        } else {
            quote.to_string()
        };
        format!("r{q}{value}{q}")
    })
}

/// `value` as a single-quoted YAML scalar, which keeps backslashes; `None`
/// for a value over several lines (folded in single quotes).
pub fn yaml_single_quoted(value: &str) -> Option<String> {
    (!value.contains(['\n', '\r'])).then(|| format!("'{}'", value.replace('\'', "''")))
}

/// The W0015 warning for the pattern literal at `at`, `what` (the pattern
/// of `matches`, the `regex` value, ...), and the spelling that fixes it.
pub fn diagnostic(what: &str, yaml: bool, fix: &str, at: Span) -> Diagnostic {
    let (written, keeps) = if yaml {
        (
            "a double-quoted YAML string",
            "single quotes keep backslashes",
        )
    } else {
        ("a non-raw string", "a raw string keeps backslashes")
    };
    Diagnostic::new(
        Code::DoubledBackslashes,
        format!("{what} is {written}, so its backslashes are doubled"),
    )
    .at(at)
    .label("`\\\\` stands for one backslash here")
    .help(format!("{keeps} as written: `{fix}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOUBLE: StrStyle = StrStyle {
        raw: false,
        quote: '"',
        triple: false,
    };

    #[test]
    fn raw_literal_keeps_the_quotes_when_it_can() {
        assert_eq!(
            raw_literal(r"\d+\.txt", DOUBLE).as_deref(),
            Some(r#"r"\d+\.txt""#)
        );
        assert_eq!(
            raw_literal(r"\d+\.txt", StrStyle::PLAIN).as_deref(),
            Some(r"r'\d+\.txt'")
        );
        assert_eq!(
            raw_literal(r#"\s"x""#, DOUBLE).as_deref(),
            Some(r#"r'\s"x"'"#)
        );
        assert_eq!(
            raw_literal(r#"'\s"x""#, DOUBLE),
            None,
            "both quotes: no raw string holds it"
        );
        assert_eq!(
            raw_literal("\\d\n", DOUBLE).as_deref(),
            Some("r\"\"\"\\d\n\"\"\"")
        );
    }

    #[test]
    fn which_patterns_are_reported() {
        assert!(has_doubled_backslashes(r"\d+"));
        assert!(!has_doubled_backslashes("^rm -rf"), "no backslash");
        assert!(!has_doubled_backslashes("\\d\u{8}"), "W0013's");
        assert!(has_doubled_backslashes("\\d\t"));
    }

    #[test]
    fn yaml_single_quotes_double_a_quote() {
        assert_eq!(yaml_single_quoted(r"it's\.").as_deref(), Some(r"'it''s\.'"));
        assert_eq!(yaml_single_quoted("a\\\nb"), None);
    }
}
