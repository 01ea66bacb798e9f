//! The parser's error messages. Each is built in a cold function of its own,
//! so that the recursive path's stack frames stay small (see the module
//! documentation of [`super`]).

use super::{Parser, Tok};
use crate::diag::{Code, Diagnostic};
use crate::span::{Origin, Span};
use crate::syntax::ast::UnaryOp;
use crate::syntax::lexer::{self, LexError, Token};
use hookc_runtime::limits::{MAX_EXPR_DEPTH, MAX_LIST_ITEMS, MAX_STRING_BYTES};

impl<'t> Parser<'t> {
    #[cold]
    #[inline(never)]
    pub(super) fn too_deep(&self, span: Span) -> Box<Diagnostic> {
        Box::new(
            Diagnostic::new(
                Code::TooDeep,
                format!("expression nests more than {MAX_EXPR_DEPTH} levels deep"),
            )
            .at(span)
            .label("too deep here")
            .help(
                "every operator, call, index, selection, list and pair of parentheses \
                 is a level; split the condition or simplify it",
            ),
        )
    }

    /// How a message names a token.
    fn describe(&self, tok: Tok) -> String {
        match tok.kind {
            None => "end of expression".to_owned(),
            Some(Token::String) => "a string literal".to_owned(),
            Some(_) => {
                let text = self.slice(tok);
                if text.chars().count() > 32 {
                    let head: String = text.chars().take(32).collect();
                    format!("`{head}...`")
                } else {
                    format!("`{text}`")
                }
            }
        }
    }

    /// "expected X, found Y", or at the end "unexpected end of expression,
    /// expected X", pointing at the token found.
    #[cold]
    #[inline(never)]
    pub(super) fn expected(&self, what: &str, found: Tok) -> Box<Diagnostic> {
        let message = match found.kind {
            None => format!("unexpected end of expression, expected {what}"),
            Some(_) => format!("expected {what}, found {}", self.describe(found)),
        };
        Box::new(
            Diagnostic::new(Code::ExprSyntax, message)
                .at(self.tok_span(found))
                .label(format!("expected {what}")),
        )
    }

    /// A missing closing delimiter: "expected `)` to close `(`, found `]`".
    #[cold]
    #[inline(never)]
    pub(super) fn unclosed(&self, kind: Token, open: Tok, found: Tok) -> Box<Diagnostic> {
        let closer = if kind == Token::RParen { ")" } else { "]" };
        let opener = self.slice(open);
        self.expected(&format!("`{closer}` to close `{opener}`"), found)
    }

    #[cold]
    #[inline(never)]
    pub(super) fn empty(&self) -> Box<Diagnostic> {
        let end = self.text.len();
        Box::new(
            Diagnostic::new(Code::ExprSyntax, "empty expression")
                .at(self.span(end, end))
                .label("expected an expression"),
        )
    }

    #[cold]
    #[inline(never)]
    pub(super) fn trailing(&self, tok: Tok) -> Box<Diagnostic> {
        let found = self.describe(tok);
        let d = Diagnostic::new(
            Code::ExprSyntax,
            format!("unexpected {found} after a complete expression"),
        )
        .at(self.tok_span(tok))
        .label("expected an operator or the end of the expression");
        Box::new(if tok.is(Token::Not) {
            d.help("`not` is a prefix operator; for \"not in\" write `!(x in list)`")
        } else {
            d
        })
    }

    #[cold]
    #[inline(never)]
    pub(super) fn missing_colon(&self, found: Tok) -> Box<Diagnostic> {
        let d = self.expected("`:` of the conditional `?:`", found);
        if found.is(Token::Question) {
            Box::new(d.help(
                "a conditional in the middle operand needs parentheses: `a ? (b ? c : d) : e`",
            ))
        } else {
            d
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn optional_index(&self, tok: Tok) -> Box<Diagnostic> {
        Box::new(
            self.expected("an expression", tok)
                .help("optional indexing `[?` is not supported"),
        )
    }

    #[cold]
    #[inline(never)]
    pub(super) fn trailing_comma(&self, tok: Tok) -> Box<Diagnostic> {
        Box::new(
            self.expected("an expression", tok)
                .help("remove the trailing `,`: argument lists do not take one"),
        )
    }

    #[cold]
    #[inline(never)]
    pub(super) fn bad_field_name(&self, tok: Tok) -> Box<Diagnostic> {
        let slice = self.slice(tok);
        // An `Ident` here is one of CEL's reserved words.
        let keyword = matches!(
            tok.kind,
            Some(
                Token::Ident
                    | Token::True
                    | Token::False
                    | Token::Null
                    | Token::In
                    | Token::And
                    | Token::Or
                    | Token::Not
            )
        );
        let d = self.expected("a field name after `.`", tok);
        Box::new(if keyword {
            d.help(format!(
                "`{slice}` is a keyword; select the field with brackets: `['{slice}']`"
            ))
        } else if tok.is(Token::Question) {
            d.help("optional field selection `.?` is not supported")
        } else if tok.is(Token::Int) || tok.is(Token::Double) {
            d.help("index lists with brackets: `[0]`")
        } else {
            *d
        })
    }

    #[cold]
    #[inline(never)]
    pub(super) fn reserved(&self, tok: Tok) -> Box<Diagnostic> {
        let name = self.slice(tok);
        Box::new(
            Diagnostic::new(Code::ExprSyntax, format!("`{name}` is a reserved word"))
                .at(self.tok_span(tok))
                .label("reserved word used as a name")
                .help(
                    "CEL reserves this word: it cannot name a variable or function; \
                     select a field of that name with brackets, e.g. `x['if']`",
                ),
        )
    }

    #[cold]
    #[inline(never)]
    pub(super) fn leading_dot(&self, tok: Tok) -> Box<Diagnostic> {
        Box::new(
            Diagnostic::new(
                Code::ExprSyntax,
                "leading-dot names (`.a.b`) are not supported",
            )
            .at(self.tok_span(tok))
            .label("leading `.`")
            .help("write the name without the leading `.`"),
        )
    }

    #[cold]
    #[inline(never)]
    pub(super) fn mixed_unary(&self, prev_tok: Tok, op: UnaryOp, tok: Tok) -> Box<Diagnostic> {
        let this = self.slice(tok);
        let before = self.slice(prev_tok);
        let example = match op {
            UnaryOp::Neg => format!("{before}(-x)"),
            UnaryOp::Not => format!("-({this}x)"),
        };
        Box::new(
            Diagnostic::new(
                Code::ExprSyntax,
                format!("`{this}` cannot directly follow `{before}`"),
            )
            .at(self.tok_span(tok))
            .label("mixed unary operators")
            .help(format!(
                "a run of prefix operators must repeat one operator; add parentheses: `{example}`"
            )),
        )
    }

    #[cold]
    #[inline(never)]
    pub(super) fn out_of_range(&self, what: &str, start: usize, end: usize) -> Box<Diagnostic> {
        let written = self.text.get(start..end).unwrap_or("");
        let d = Diagnostic::new(
            Code::BadLiteral,
            format!("{what} literal `{written}` is out of range"),
        )
        .at(self.span(start, end));
        Box::new(if what == "integer" {
            d.label("does not fit in a 64-bit signed integer").help(
                "ints range from -9223372036854775808 to 9223372036854775807; \
                 write a double such as `1e19` for larger numbers",
            )
        } else {
            d.label("too large for a 64-bit double")
        })
    }

    #[cold]
    #[inline(never)]
    pub(super) fn long_string(&self, tok: Tok, len: usize) -> Box<Diagnostic> {
        Box::new(
            Diagnostic::new(
                Code::TooLarge,
                format!(
                    "string literal of {len} bytes is longer than the limit of \
                     {MAX_STRING_BYTES} bytes (MAX_STRING_BYTES)"
                ),
            )
            .at(self.span(tok.start, tok.end))
            .label("string too long"),
        )
    }

    #[cold]
    #[inline(never)]
    pub(super) fn long_list(&self, at: Tok) -> Box<Diagnostic> {
        Box::new(
            Diagnostic::new(
                Code::TooLarge,
                format!("list literal has more than {MAX_LIST_ITEMS} items (MAX_LIST_ITEMS)"),
            )
            .at(self.tok_span(at))
            .label(format!("item {} of the list", MAX_LIST_ITEMS + 1)),
        )
    }

    #[cold]
    #[inline(never)]
    pub(super) fn bad_escape(&self, tok: Tok, e: lexer::EscapeError) -> Box<Diagnostic> {
        let help = if self.in_pattern {
            // The escape was meant for the regex or glob (`\d`, `\.`): a
            // raw string hands it over as written.
            match raw_spelling(self.slice(tok)) {
                Some(raw) => {
                    format!("a pattern keeps its backslashes in a raw string: write `{raw}`")
                }
                None => "a pattern keeps its backslashes in a raw string (`r'...'`), \
                         or double each backslash"
                    .to_owned(),
            }
        } else {
            "the escapes are `\\\\ \\' \\\" \\` \\? \\a \\b \\f \\n \\r \\t \\v`, \
             `\\xHH`, octal `\\000`..`\\377`, `\\uHHHH` and `\\UHHHHHHHH`; \
             a raw string `r'...'` takes backslashes literally"
                .to_owned()
        };
        Box::new(
            Diagnostic::new(Code::BadLiteral, e.message)
                .at(self.span(tok.start + e.range.start, tok.start + e.range.end))
                .label(e.label)
                .help(help),
        )
    }

    #[cold]
    #[inline(never)]
    pub(super) fn lex_error(&self, e: LexError, start: usize, end: usize) -> Box<Diagnostic> {
        let text = self.text.get(start..end).unwrap_or("");
        let d = match e {
            LexError::UnexpectedChar => {
                let shown: String = text.chars().flat_map(char::escape_debug).collect();
                Diagnostic::new(Code::ExprSyntax, format!("unexpected character `{shown}`"))
                    .at(self.span(start, end))
                    .label("not part of any token")
            }
            LexError::UnterminatedString => {
                // Point at the opening delimiter: prefix and quote(s).
                let bytes = text.as_bytes();
                let open_len = bytes
                    .iter()
                    .position(|&b| b == b'\'' || b == b'"')
                    .map_or(1, |q| {
                        let quote = bytes.get(q);
                        let tripled = bytes.get(q + 1) == quote && bytes.get(q + 2) == quote;
                        q + if tripled { 3 } else { 1 }
                    });
                let d = Diagnostic::new(Code::ExprSyntax, "unterminated string literal")
                    .at(self.span(start, (start + open_len).min(end)))
                    .label("this string is never closed");
                if end >= self.text.len() {
                    d
                } else if matches!(self.origin, Origin::Whole(_)) {
                    // The text was decoded (a YAML double-quoted value, XML
                    // entities): a `\n` written there is a line break now.
                    d.help(
                        "a quoted string must end on the line it starts on, and the YAML \
                         double quotes around the expression turned a `\\n` into a line break \
                         before it was read: write `\\\\n` there, or quote the YAML value with \
                         single quotes (or write it as a block scalar, `>-`)",
                    )
                } else {
                    d.help(
                        "a quoted string must end on the line it starts on; \
                         write `\\n` for a line break, or use a triple-quoted string `'''...'''`",
                    )
                }
            }
        };
        Box::new(d)
    }

    /// Tokens that are recognised only to be rejected with a precise message.
    #[cold]
    #[inline(never)]
    pub(super) fn unsupported(&self, tok: Tok) -> Box<Diagnostic> {
        let span = self.tok_span(tok);
        let text = self.slice(tok);
        let d = match tok.kind {
            Some(Token::Uint) => {
                let digits = text.trim_end_matches(['u', 'U']);
                Diagnostic::new(
                    Code::BadLiteral,
                    "unsigned integer literals are not supported",
                )
                .label("unsigned integer literal")
                .help(format!(
                    "unsigned integers are not supported; write `{digits}`"
                ))
            }
            Some(Token::Bytes) => {
                Diagnostic::new(Code::BadLiteral, "bytes literals are not supported")
                    .label("bytes literal")
                    .help("use a string literal (without the `b` prefix)")
            }
            Some(Token::Comment) => Diagnostic::new(
                Code::ExprSyntax,
                "comments are not supported in expressions",
            )
            .label("comment")
            .help("remove the `//` comment"),
            Some(Token::Backtick) => Diagnostic::new(
                Code::ExprSyntax,
                "backtick-quoted names are not supported",
            )
            .label("backtick")
            .help("select a field whose name is not an identifier with brackets, e.g. `a['b-c']`"),
            Some(Token::Assign) => Diagnostic::new(Code::ExprSyntax, "`=` is not an operator")
                .label("assignment-like `=`")
                .help("use `==` to compare"),
            Some(Token::Amp) => Diagnostic::new(Code::ExprSyntax, "`&` is not an operator")
                .label("single `&`")
                .help("use `&&` or `and`"),
            Some(Token::Pipe) => Diagnostic::new(Code::ExprSyntax, "`|` is not an operator")
                .label("single `|`")
                .help("use `||` or `or`"),
            _ => return self.expected("a token", tok),
        };
        Box::new(d.at(span))
    }
}

/// A string literal written with single backslashes meant for a pattern
/// (`"\d+\.txt"`, an error as a string) as the raw string that means it
/// (`r"\d+\.txt"`): the same text with an `r` prefix. `None` when that
/// would change it: the literal holds an escape a raw string cannot keep,
/// a doubled backslash or an escaped quote (`"\\d"`, `"\""`), whose
/// meaning differs raw.
fn raw_spelling(literal: &str) -> Option<String> {
    let mut chars = literal.chars();
    while let Some(c) = chars.next() {
        if c == '\\' && matches!(chars.next(), Some('\\' | '\'' | '"') | None) {
            return None;
        }
    }
    Some(format!("r{literal}"))
}
