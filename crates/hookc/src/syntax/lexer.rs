//! The tokens of the `when` expression language (a `logos` lexer) and the
//! decoding of string literals (quotes, raw prefix, escapes).
//!
//! The lexical rules are the ones of `grammar/expr.ebnf`, which follow CEL's.
//! A few tokens are recognised only so that the parser can reject them with a
//! precise message: unsigned and bytes literals, `//` comments, backtick-quoted
//! names, and the single `=`, `&`, `|`, `{`, `}`.
//!
//! The lexer only finds where a string literal ends; [`decode_string`] checks
//! its escapes and produces its value, so that an escape error can point at the
//! escape itself.

use logos::Logos;
use std::ops::Range;

/// Why the lexer could not produce a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LexError {
    /// A character that starts no token (the error's span covers it).
    #[default]
    UnexpectedChar,
    /// A string literal without its closing delimiter. The error's span runs
    /// from the opening delimiter to the end of the line (single-line strings)
    /// or of the input (triple-quoted strings).
    UnterminatedString,
}

/// One token. Tokens carry no data: the parser reads their text through their
/// span.
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\x0C]+")]
pub enum Token {
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `[`
    #[token("[")]
    LBracket,
    /// `]`
    #[token("]")]
    RBracket,
    /// `{` (map literals)
    #[token("{")]
    LBrace,
    /// `}` (rejected)
    #[token("}")]
    RBrace,
    /// `,`
    #[token(",")]
    Comma,
    /// `.`
    #[token(".")]
    Dot,
    /// `?`
    #[token("?")]
    Question,
    /// `??`, the fallback operator.
    #[token("??")]
    QuestionQuestion,
    /// `:`
    #[token(":")]
    Colon,
    /// `!`
    #[token("!")]
    Bang,
    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `*`
    #[token("*")]
    Star,
    /// `/`
    #[token("/")]
    Slash,
    /// `%`
    #[token("%")]
    Percent,
    /// `==`
    #[token("==")]
    EqEq,
    /// `!=`
    #[token("!=")]
    NotEq,
    /// `<`
    #[token("<")]
    Lt,
    /// `<=`
    #[token("<=")]
    Le,
    /// `>`
    #[token(">")]
    Gt,
    /// `>=`
    #[token(">=")]
    Ge,
    /// `&&`
    #[token("&&")]
    AndAnd,
    /// `||`
    #[token("||")]
    OrOr,
    /// A single `=` (rejected: "use `==`").
    #[token("=")]
    Assign,
    /// A single `&` (rejected: "use `&&`").
    #[token("&")]
    Amp,
    /// A single `|` (rejected: "use `||`").
    #[token("|")]
    Pipe,
    /// A backtick (rejected: CEL's quoted names are not supported).
    #[token("`")]
    Backtick,
    /// A `//` comment up to the end of the line (rejected).
    #[regex(r"//[^\n]*", allow_greedy = true)]
    Comment,
    /// `true`
    #[token("true")]
    True,
    /// `false`
    #[token("false")]
    False,
    /// `null`
    #[token("null")]
    Null,
    /// `in`
    #[token("in")]
    In,
    /// `and`, the word form of `&&`.
    #[token("and")]
    And,
    /// `or`, the word form of `||`.
    #[token("or")]
    Or,
    /// `not`, the word form of `!`.
    #[token("not")]
    Not,
    /// An identifier, or one of CEL's reserved words (`if`, `var`, ...), which
    /// the parser rejects where a name is expected.
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident,
    /// A decimal or `0x` hexadecimal int literal, without sign.
    #[regex(r"[0-9]+")]
    #[regex(r"0x[0-9a-fA-F]+")]
    Int,
    /// An unsigned int literal such as `1u` (rejected).
    #[regex(r"[0-9]+[uU]")]
    #[regex(r"0x[0-9a-fA-F]+[uU]")]
    Uint,
    /// A double literal: `1.5`, `1e3`, `1.5e-3`, `.5`.
    #[regex(r"[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?")]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+")]
    #[regex(r"\.[0-9]+([eE][+-]?[0-9]+)?")]
    Double,
    /// A string literal, from its optional `r`/`R` prefix to its closing
    /// delimiter; see [`decode_string`].
    #[regex(r#"[rR]?['"]"#, string_rest)]
    String,
    /// A bytes literal such as `b'..'` (rejected).
    #[regex(r#"[bB][rR]?['"]"#, string_rest)]
    Bytes,
}

/// Extends a `String` or `Bytes` token from its opening quote to the end of
/// the literal.
fn string_rest(lex: &mut logos::Lexer<'_, Token>) -> Result<(), LexError> {
    let opening = lex.slice().as_bytes();
    let raw = opening.iter().any(|b| matches!(b, b'r' | b'R'));
    let Some(&quote) = opening.last() else {
        return Err(LexError::UnexpectedChar);
    };
    match scan_string(lex.remainder().as_bytes(), quote, raw) {
        Ok(len) => {
            lex.bump(len);
            Ok(())
        }
        Err(len) => {
            lex.bump(len);
            Err(LexError::UnterminatedString)
        }
    }
}

/// Scans a string literal's rest (what follows its first quote). `Ok(n)`: the
/// literal ends `n` bytes in (after its closing delimiter). `Err(n)`: it is
/// unterminated; the line (single-line strings) or the input (triple-quoted
/// strings) ends `n` bytes in.
///
/// Every returned offset is just after an ASCII byte or at the end of `rest`,
/// so it is a character boundary. Skipping the byte after a backslash may land
/// inside a multi-byte character; its continuation bytes are never ASCII, so
/// the scan is unaffected.
pub(crate) fn scan_string(rest: &[u8], quote: u8, raw: bool) -> Result<usize, usize> {
    let is_delim = |i: usize| rest.get(i) == Some(&quote);
    let triple = is_delim(0) && is_delim(1);
    let mut i = if triple { 2 } else { 0 };
    loop {
        match rest.get(i) {
            None => return Err(rest.len()),
            Some(b'\\') if !raw => {
                // An escape: the next byte cannot close the string. In a
                // single-line string, a line break cannot be escaped.
                match rest.get(i + 1) {
                    Some(b'\n' | b'\r') if !triple => return Err(i),
                    _ => i += 2,
                }
            }
            Some(&b) if b == quote => {
                if !triple {
                    return Ok(i + 1);
                }
                if is_delim(i + 1) && is_delim(i + 2) {
                    return Ok(i + 3);
                }
                i += 1;
            }
            Some(b'\n' | b'\r') if !triple => return Err(i),
            Some(_) => i += 1,
        }
    }
}

/// What is wrong with a string literal's escape sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EscapeError {
    /// Byte range of the escape sequence within the literal's text.
    pub range: Range<usize>,
    /// The message, lowercase, with the escape in backticks.
    pub message: String,
    /// A short text for the caret.
    pub label: &'static str,
}

/// The value of a `String` token's text (prefix and quotes included): raw
/// strings are taken as written, other strings have their escapes resolved.
///
/// Escapes (CEL's): `\\ \' \" \` \? \a \b \f \n \r \t \v`, `\xHH` and `\XHH`
/// (code points up to U+00FF), octal `\000`..`\377`, `\uHHHH` and
/// `\UHHHHHHHH` (any Unicode scalar value; surrogates and values past
/// U+10FFFF are errors).
pub fn decode_string(text: &str) -> Result<String, EscapeError> {
    let (raw, body, body_start) = string_body(text);
    if raw {
        return Ok(body.to_owned());
    }
    let mut out = String::with_capacity(body.len());
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let start = body_start + i;
        let Some((_, e)) = chars.next() else {
            return Err(escape_error(start, start + 1, "\\", "incomplete escape"));
        };
        let simple = match e {
            'a' => Some('\u{07}'),
            'b' => Some('\u{08}'),
            'f' => Some('\u{0C}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{0B}'),
            '\\' | '\'' | '"' | '`' | '?' => Some(e),
            _ => None,
        };
        if let Some(v) = simple {
            out.push(v);
            continue;
        }
        let (digits, radix) = match e {
            'x' | 'X' => (2, 16),
            'u' => (4, 16),
            'U' => (8, 16),
            '0'..='3' => (2, 8),
            _ => {
                let end = start + 1 + e.len_utf8();
                let seq = text.get(start..end).unwrap_or("\\");
                return Err(escape_error(start, end, seq, "unknown escape"));
            }
        };
        // Octal escapes count their first digit, already read, in `value`.
        let mut value: u32 = if radix == 8 { e as u32 - '0' as u32 } else { 0 };
        let mut end = start + 1 + e.len_utf8();
        for _ in 0..digits {
            let digit = chars.peek().and_then(|&(_, d)| d.to_digit(radix));
            let Some(d) = digit else {
                let seq = text.get(start..end).unwrap_or("\\");
                let label = if radix == 8 {
                    "an octal escape has three octal digits, `\\000` to `\\377`"
                } else {
                    match digits {
                        2 => "expected 2 hex digits",
                        4 => "expected 4 hex digits",
                        _ => "expected 8 hex digits",
                    }
                };
                return Err(escape_error(start, end, seq, label));
            };
            chars.next();
            end += 1;
            value = value * radix + d;
        }
        match char::from_u32(value) {
            Some(v) => out.push(v),
            None => {
                let seq = text.get(start..end).unwrap_or("\\");
                let kind = if (0xD800..=0xDFFF).contains(&value) {
                    "a surrogate"
                } else {
                    "past U+10FFFF"
                };
                return Err(EscapeError {
                    range: start..end,
                    message: format!("escape `{seq}` is not a Unicode scalar value: it is {kind}"),
                    label: "not a Unicode scalar value",
                });
            }
        }
    }
    Ok(out)
}

fn escape_error(start: usize, end: usize, seq: &str, label: &'static str) -> EscapeError {
    EscapeError {
        range: start..end,
        message: format!("invalid escape sequence `{seq}`"),
        label,
    }
}

/// How a `String` token's text (prefix and quotes included) is written.
pub fn string_style(text: &str) -> crate::syntax::ast::StrStyle {
    let (raw, _, body_start) = string_body(text);
    let prefix = text
        .bytes()
        .take_while(|b| matches!(b, b'r' | b'R' | b'b' | b'B'))
        .count();
    crate::syntax::ast::StrStyle {
        raw,
        quote: if text.as_bytes().get(prefix) == Some(&b'"') {
            '"'
        } else {
            '\''
        },
        // The opening delimiter is three quotes.
        triple: body_start == prefix + 3,
    }
}

/// Splits a string literal's text into (raw?, body, offset of the body).
/// Works on any text; a malformed one just gives a shorter body.
fn string_body(text: &str) -> (bool, &str, usize) {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut raw = false;
    while let Some(b'r' | b'R' | b'b' | b'B') = bytes.get(start) {
        raw |= matches!(bytes.get(start), Some(b'r' | b'R'));
        start += 1;
    }
    let quote = bytes.get(start).copied().unwrap_or(b'\'');
    let delim = if text.len() >= start + 6
        && bytes.get(start + 1) == Some(&quote)
        && bytes.get(start + 2) == Some(&quote)
    {
        3
    } else {
        1
    };
    let body_start = start + delim;
    let body_end = text.len().saturating_sub(delim).max(body_start);
    (
        raw,
        text.get(body_start..body_end).unwrap_or(""),
        body_start,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Result<(Token, &str), LexError>> {
        let mut lex = Token::lexer(text);
        let mut out = Vec::new();
        while let Some(t) = lex.next() {
            out.push(t.map(|k| (k, lex.slice())));
        }
        out
    }

    #[test]
    fn punctuation_keywords_and_names() {
        use Token::*;
        let toks: Vec<_> = kinds("a.b(c)[0] && !x || y != z <= w >= v == u and or not in")
            .into_iter()
            .map(|t| t.unwrap().0)
            .collect();
        assert_eq!(
            toks,
            vec![
                Ident, Dot, Ident, LParen, Ident, RParen, LBracket, Int, RBracket, AndAnd, Bang,
                Ident, OrOr, Ident, NotEq, Ident, Le, Ident, Ge, Ident, EqEq, Ident, And, Or, Not,
                In
            ]
        );
        // Keywords only as whole words.
        assert_eq!(
            kinds("notx inx"),
            vec![Ok((Ident, "notx")), Ok((Ident, "inx"))]
        );
    }

    #[test]
    fn numbers() {
        use Token::*;
        assert_eq!(kinds("0x1F"), vec![Ok((Int, "0x1F"))]);
        assert_eq!(kinds("1.5e-3"), vec![Ok((Double, "1.5e-3"))]);
        assert_eq!(kinds(".99"), vec![Ok((Double, ".99"))]);
        assert_eq!(kinds("1e3"), vec![Ok((Double, "1e3"))]);
        assert_eq!(kinds("1u"), vec![Ok((Uint, "1u"))]);
        // No digit after the dot or exponent: the number stops before it.
        assert_eq!(
            kinds("1.a"),
            vec![Ok((Int, "1")), Ok((Dot, ".")), Ok((Ident, "a"))]
        );
        assert_eq!(kinds("1e"), vec![Ok((Int, "1")), Ok((Ident, "e"))]);
    }

    #[test]
    fn string_extents() {
        use Token::*;
        assert_eq!(
            kinds(r#"'a\'b' "c""#),
            vec![Ok((String, r"'a\'b'")), Ok((String, "\"c\""))]
        );
        assert_eq!(
            kinds("''' x '' y '''"),
            vec![Ok((String, "''' x '' y '''"))]
        );
        assert_eq!(kinds("'' ''"), vec![Ok((String, "''")), Ok((String, "''"))]);
        assert_eq!(
            kinds(r"r'\' 'x'"),
            vec![Ok((String, r"r'\'")), Ok((String, "'x'"))]
        );
        assert_eq!(kinds("b'x'"), vec![Ok((Bytes, "b'x'"))]);
        assert_eq!(kinds("rb'x'"), vec![Ok((Ident, "rb")), Ok((String, "'x'"))]);
        assert_eq!(kinds("'''a\nb'''"), vec![Ok((String, "'''a\nb'''"))]);
    }

    #[test]
    fn unterminated_strings() {
        let mut lex = Token::lexer("'abc\n'");
        assert_eq!(lex.next(), Some(Err(LexError::UnterminatedString)));
        assert_eq!(lex.span(), 0..4);
        let mut lex = Token::lexer("x '''abc");
        lex.next();
        assert_eq!(lex.next(), Some(Err(LexError::UnterminatedString)));
        assert_eq!(lex.span(), 2..8);
        let mut lex = Token::lexer(r"'abc\");
        assert_eq!(lex.next(), Some(Err(LexError::UnterminatedString)));
    }

    #[test]
    fn unexpected_character_covers_whole_char() {
        let mut lex = Token::lexer("é");
        assert_eq!(lex.next(), Some(Err(LexError::UnexpectedChar)));
        assert_eq!(lex.span(), 0..2);
    }

    #[test]
    fn decodes_escapes() {
        assert_eq!(
            decode_string(r#""\a\b\f\n\r\t\v\"\'\\\`\?""#).unwrap(),
            "\u{7}\u{8}\u{c}\n\r\t\u{b}\"'\\`?"
        );
        assert_eq!(
            decode_string(r"'\x4a\X4B\101\377\u01aB\U0001F431'").unwrap(),
            "JKAÿƫ🐱"
        );
        assert_eq!(decode_string(r"r'\n\x'").unwrap(), r"\n\x");
        assert_eq!(decode_string(r"R'''\n'''").unwrap(), r"\n");
        assert_eq!(decode_string(r"''''''").unwrap(), "");
        assert_eq!(decode_string(r"''").unwrap(), "");
        assert_eq!(decode_string("'''a\"''b'''").unwrap(), "a\"''b");
    }

    #[test]
    fn escape_errors() {
        let e = decode_string(r"'ab\qc'").unwrap_err();
        assert_eq!(
            (e.range, e.message.as_str()),
            (3..5, r"invalid escape sequence `\q`")
        );
        let e = decode_string(r"'\x4'").unwrap_err();
        assert_eq!((e.range, e.label), (1..4, "expected 2 hex digits"));
        let e = decode_string(r"'\400'").unwrap_err();
        assert_eq!(e.message, r"invalid escape sequence `\4`");
        let e = decode_string(r"'\08'").unwrap_err();
        assert_eq!(e.range, 1..3);
        let e = decode_string(r"'\uD800'").unwrap_err();
        assert_eq!(
            e.message,
            r"escape `\uD800` is not a Unicode scalar value: it is a surrogate"
        );
        let e = decode_string(r"'\U00110000'").unwrap_err();
        assert!(e.message.ends_with("past U+10FFFF"), "{}", e.message);
        let e = decode_string("'\\é'").unwrap_err();
        assert_eq!(
            (e.range, e.message.as_str()),
            (1..4, "invalid escape sequence `\\é`")
        );
    }
}
