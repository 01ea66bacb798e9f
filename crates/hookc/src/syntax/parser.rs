//! The parser of the `when` expression language: text to [`ast::Expr`].
//!
//! A hand-written precedence-climbing parser that follows `grammar/expr.ebnf`
//! production by production. It pulls tokens from the lexer one at a time, so
//! the error it reports is the first one in source order.
//!
//! # Input safety
//!
//! Every node of the produced tree sits at most [`MAX_EXPR_DEPTH`] levels deep,
//! counting each operator, call, index, selection, list and pair of
//! parentheses as a level; deeper input is a [`Code::TooDeep`] error. The
//! parser checks the bound on its way down, before it recurses (so hostile
//! input such as 100,000 `(` cannot overflow the stack), and again each time
//! it folds a left-associative chain (`a + a + ...`, `a.b.c...`), so that no
//! later recursive pass over the tree, dropping it included, recurses deeper
//! than the bound either.
//!
//! The functions on the recursive path keep their stack frames small: error
//! messages are built in separate cold functions, and each alternative of
//! `Primary` and `Member` that recurses has a function of its own.
//!
//! # Spans
//!
//! Every node spans its whole source text. A parenthesised expression's span
//! includes its parentheses (the tree has no node for them). A `-` folded
//! into a number literal is part of the literal's span.

use super::ast::{self, BinaryOp, Expr, ExprKind, UnaryOp};
use super::lexer::{self, LexError, Token};
use crate::diag::{Code, Diagnostic};
use crate::span::{Origin, Span};
use hookc_runtime::limits::{MAX_EXPR_DEPTH, MAX_LIST_ITEMS, MAX_STRING_BYTES};
use logos::Logos;

/// Parses one expression; the whole text must be consumed.
///
/// Returns the first syntax error: [`Code::ExprSyntax`], [`Code::TooDeep`]
/// past [`MAX_EXPR_DEPTH`], or [`Code::BadLiteral`] for a literal that cannot
/// be represented or is not supported (bad escape, int out of range, `1u`,
/// `b'..'`).
#[allow(clippy::result_large_err)] // the signature every front end shares; one error per parse
pub fn parse(text: &str, origin: Origin) -> Result<Expr, Diagnostic> {
    let mut parser = Parser {
        text,
        origin,
        lexer: Token::lexer(text),
        peeked: None,
    };
    parser.parse_all().map_err(|d| *d)
}

/// Errors are boxed inside the parser to keep its `Result`s small on the
/// recursive path.
type PResult<T> = Result<T, Box<Diagnostic>>;

/// The precedence of `||`, the loosest binary operator.
const OR_PREC: u8 = 2;

/// A token with its byte range in the text; `kind` is `None` at the end.
#[derive(Debug, Clone, Copy)]
struct Tok {
    kind: Option<Token>,
    start: usize,
    end: usize,
}

impl Tok {
    fn is(self, kind: Token) -> bool {
        self.kind == Some(kind)
    }
}

/// An expression with the height of its tree (a leaf has height 1;
/// parentheses count as a level).
///
/// The expression is boxed from the start: the tree stores its children in
/// boxes anyway, and a small `Node` keeps the recursive path's frames small.
struct Node {
    expr: Box<Expr>,
    height: usize,
}

impl Node {
    fn new(kind: ExprKind, span: Span, height: usize) -> Node {
        Node {
            expr: Box::new(Expr { kind, span }),
            height,
        }
    }
}

struct Parser<'t> {
    text: &'t str,
    origin: Origin,
    lexer: logos::Lexer<'t, Token>,
    peeked: Option<Tok>,
}

impl<'t> Parser<'t> {
    // ---- tokens -----------------------------------------------------------------

    /// The next token, without consuming it. Lexical errors, and tokens that
    /// exist only to be rejected, become errors here.
    fn peek(&mut self) -> PResult<Tok> {
        if let Some(tok) = self.peeked {
            return Ok(tok);
        }
        let tok = match self.lexer.next() {
            None => Tok {
                kind: None,
                start: self.text.len(),
                end: self.text.len(),
            },
            Some(Ok(kind)) => {
                let range = self.lexer.span();
                Tok {
                    kind: Some(kind),
                    start: range.start,
                    end: range.end,
                }
            }
            Some(Err(e)) => {
                let range = self.lexer.span();
                return Err(self.lex_error(e, range.start, range.end));
            }
        };
        if matches!(
            tok.kind,
            Some(
                Token::Uint
                    | Token::Bytes
                    | Token::Comment
                    | Token::Backtick
                    | Token::Assign
                    | Token::Amp
                    | Token::Pipe
            )
        ) {
            return Err(self.unsupported(tok));
        }
        self.peeked = Some(tok);
        Ok(tok)
    }

    /// Consumes and returns the next token.
    fn bump(&mut self) -> PResult<Tok> {
        let tok = self.peek()?;
        self.peeked = None;
        Ok(tok)
    }

    /// Consumes the next token if it is `kind`.
    fn eat(&mut self, kind: Token) -> PResult<Option<Tok>> {
        let tok = self.peek()?;
        if tok.is(kind) {
            self.peeked = None;
            Ok(Some(tok))
        } else {
            Ok(None)
        }
    }

    fn slice(&self, tok: Tok) -> &'t str {
        self.text.get(tok.start..tok.end).unwrap_or("")
    }

    fn span(&self, start: usize, end: usize) -> Span {
        self.origin.span(start, end)
    }

    fn tok_span(&self, tok: Tok) -> Span {
        self.span(tok.start, tok.end)
    }

    // ---- the grammar --------------------------------------------------------------

    /// The whole text: `Expr` and the end.
    fn parse_all(&mut self) -> PResult<Expr> {
        if self.text.trim_matches(is_whitespace).is_empty() {
            return Err(self.empty());
        }
        let node = self.parse_expr(0)?;
        let tok = self.peek()?;
        if tok.kind.is_some() {
            return Err(self.trailing(tok));
        }
        Ok(*node.expr)
    }

    /// `Expr ::= ConditionalOr ( "?" ConditionalOr ":" Expr )?`
    ///
    /// `depth` is the number of levels above the node being parsed.
    fn parse_expr(&mut self, depth: usize) -> PResult<Node> {
        self.enter(depth)?;
        let cond = self.parse_binary(depth, OR_PREC)?;
        if self.eat(Token::Question)?.is_none() {
            return Ok(cond);
        }
        self.parse_conditional(cond, depth)
    }

    /// The rest of `cond ? then : otherwise`, after the `?`.
    #[inline(never)]
    fn parse_conditional(&mut self, cond: Node, depth: usize) -> PResult<Node> {
        // As in CEL, the middle operand is a ConditionalOr: a nested
        // conditional there needs parentheses.
        let then = self.parse_binary(depth + 1, OR_PREC)?;
        let colon = self.bump()?;
        if !colon.is(Token::Colon) {
            return Err(self.missing_colon(colon));
        }
        let otherwise = self.parse_expr(depth + 1)?;
        let height = 1 + cond.height.max(then.height).max(otherwise.height);
        let span = cond.expr.span.to(otherwise.expr.span);
        self.check(depth, height, span)?;
        let kind = ExprKind::Cond {
            cond: cond.expr,
            then: then.expr,
            otherwise: otherwise.expr,
        };
        Ok(Node::new(kind, span, height))
    }

    /// `ConditionalOr`, `ConditionalAnd`, `Relation`, `Addition` and
    /// `Multiplication`, by precedence climbing: parses the operators that bind
    /// at least as tightly as `min_prec`, all left-associative.
    fn parse_binary(&mut self, depth: usize, min_prec: u8) -> PResult<Node> {
        self.enter(depth)?;
        let mut lhs = self.parse_unary(depth)?;
        loop {
            let tok = self.peek()?;
            let Some(op) = tok.kind.and_then(binary_op) else {
                return Ok(lhs);
            };
            if op.precedence() < min_prec {
                return Ok(lhs);
            }
            self.bump()?;
            let rhs = self.parse_binary(depth + 1, op.precedence() + 1)?;
            lhs = self.binary(op, tok, lhs, rhs, depth)?;
        }
    }

    fn binary(&self, op: BinaryOp, tok: Tok, lhs: Node, rhs: Node, depth: usize) -> PResult<Node> {
        let height = 1 + lhs.height.max(rhs.height);
        let op_span = self.tok_span(tok);
        self.check(depth, height, op_span)?;
        let span = lhs.expr.span.to(rhs.expr.span);
        let kind = ExprKind::Binary {
            op,
            op_span,
            lhs: lhs.expr,
            rhs: rhs.expr,
        };
        Ok(Node::new(kind, span, height))
    }

    /// `Unary ::= Member | NotOp+ Member | "-"+ Member`, where a `-` right
    /// before a number literal belongs to the literal.
    fn parse_unary(&mut self, depth: usize) -> PResult<Node> {
        let mut ops: Vec<(UnaryOp, Tok)> = Vec::new();
        let mut literal = None;
        loop {
            let tok = self.peek()?;
            let op = match tok.kind {
                Some(Token::Bang | Token::Not) => UnaryOp::Not,
                Some(Token::Minus) => UnaryOp::Neg,
                _ => break,
            };
            self.bump()?;
            if op == UnaryOp::Neg {
                let next = self.peek()?;
                if next.is(Token::Int) || next.is(Token::Double) {
                    self.bump()?;
                    literal = Some(self.number(next, Some(tok))?);
                    break;
                }
            }
            if let Some(&(prev, prev_tok)) = ops.last() {
                if prev != op {
                    return Err(self.mixed_unary(prev_tok, op, tok));
                }
            }
            // The operand will sit below every operator collected so far.
            if depth + ops.len() + 1 >= MAX_EXPR_DEPTH {
                return Err(self.too_deep(self.tok_span(tok)));
            }
            ops.push((op, tok));
        }
        let operand_depth = depth + ops.len();
        let primary = match literal {
            Some(node) => node,
            None => self.parse_primary(operand_depth)?,
        };
        let mut node = self.parse_member(primary, operand_depth)?;
        for (level, &(op, tok)) in ops.iter().enumerate().rev() {
            let height = node.height + 1;
            let op_span = self.tok_span(tok);
            self.check(depth + level, height, op_span)?;
            let span = op_span.to(node.expr.span);
            let kind = ExprKind::Unary {
                op,
                op_span,
                operand: node.expr,
            };
            node = Node::new(kind, span, height);
        }
        Ok(node)
    }

    /// `Member ::= Primary ( "." IDENT Arguments? | "[" Expr "]" )*`, after
    /// the `Primary`.
    fn parse_member(&mut self, mut node: Node, depth: usize) -> PResult<Node> {
        loop {
            let tok = self.peek()?;
            node = match tok.kind {
                Some(Token::Dot) => self.parse_select_or_method(node, depth)?,
                Some(Token::LBracket) => self.parse_index(node, depth)?,
                _ => return Ok(node),
            };
        }
    }

    /// `"." IDENT Arguments?` after `target`.
    #[inline(never)]
    fn parse_select_or_method(&mut self, target: Node, depth: usize) -> PResult<Node> {
        self.bump()?;
        let name = self.field_name()?;
        let name_span = self.tok_span(name);
        let field = self.slice(name).to_owned();
        if self.eat(Token::LParen)?.is_none() {
            let height = 1 + target.height;
            self.check(depth, height, name_span)?;
            let span = target.expr.span.to(name_span);
            let kind = ExprKind::Select {
                target: target.expr,
                field,
                field_span: name_span,
            };
            return Ok(Node::new(kind, span, height));
        }
        let (args, args_height, close) = self.parse_args(depth + 1)?;
        let height = 1 + target.height.max(args_height);
        self.check(depth, height, name_span)?;
        let span = target.expr.span.to(self.tok_span(close));
        let kind = ExprKind::Call {
            target: Some(target.expr),
            name: field,
            name_span,
            args,
        };
        Ok(Node::new(kind, span, height))
    }

    /// `"[" Expr "]"` after `target`.
    #[inline(never)]
    fn parse_index(&mut self, target: Node, depth: usize) -> PResult<Node> {
        let open = self.bump()?;
        let next = self.peek()?;
        if next.is(Token::Question) {
            return Err(self.optional_index(next));
        }
        let index = self.parse_expr(depth + 1)?;
        let close = self.close(Token::RBracket, open)?;
        let height = 1 + target.height.max(index.height);
        self.check(depth, height, self.tok_span(open))?;
        let span = target.expr.span.to(self.tok_span(close));
        let kind = ExprKind::Index {
            target: target.expr,
            index: index.expr,
        };
        Ok(Node::new(kind, span, height))
    }

    /// `Primary ::= IDENT Arguments? | "(" Expr ")" | "[" ( ExprList ","? )? "]" | Literal`
    fn parse_primary(&mut self, depth: usize) -> PResult<Node> {
        let tok = self.peek()?;
        let tok_span = self.tok_span(tok);
        let leaf = |kind| Node::new(kind, tok_span, 1);
        match tok.kind {
            Some(Token::Int | Token::Double) => {
                self.bump()?;
                self.number(tok, None)
            }
            Some(Token::String) => {
                self.bump()?;
                let value =
                    lexer::decode_string(self.slice(tok)).map_err(|e| self.bad_escape(tok, e))?;
                if value.len() > MAX_STRING_BYTES {
                    return Err(self.long_string(tok, value.len()));
                }
                Ok(leaf(ExprKind::String(value)))
            }
            Some(Token::True) => self.bump().map(|_| leaf(ExprKind::Bool(true))),
            Some(Token::False) => self.bump().map(|_| leaf(ExprKind::Bool(false))),
            Some(Token::Null) => self.bump().map(|_| leaf(ExprKind::Null)),
            Some(Token::Ident) => self.parse_ident_or_call(depth),
            Some(Token::LParen) => self.parse_parenthesized(depth),
            Some(Token::LBracket) => self.parse_list(depth),
            Some(Token::LBrace) => Err(self.map_literal(tok)),
            Some(Token::Dot) => Err(self.leading_dot(tok)),
            _ => Err(self.expected("an expression", tok)),
        }
    }

    /// `IDENT Arguments?`
    #[inline(never)]
    fn parse_ident_or_call(&mut self, depth: usize) -> PResult<Node> {
        let tok = self.bump()?;
        let name = self.slice(tok);
        let name_span = self.tok_span(tok);
        if ast::is_keyword(name) {
            return Err(self.reserved(tok));
        }
        if self.eat(Token::LParen)?.is_none() {
            return Ok(Node::new(ExprKind::Ident(name.to_owned()), name_span, 1));
        }
        let (args, args_height, close) = self.parse_args(depth + 1)?;
        let height = 1 + args_height;
        self.check(depth, height, name_span)?;
        let kind = ExprKind::Call {
            target: None,
            name: name.to_owned(),
            name_span,
            args,
        };
        Ok(Node::new(kind, name_span.to(self.tok_span(close)), height))
    }

    /// `"(" Expr ")"`
    #[inline(never)]
    fn parse_parenthesized(&mut self, depth: usize) -> PResult<Node> {
        let open = self.bump()?;
        let mut inner = self.parse_expr(depth + 1)?;
        let close = self.close(Token::RParen, open)?;
        inner.height += 1;
        inner.expr.span = self.span(open.start, close.end);
        self.check(depth, inner.height, inner.expr.span)?;
        Ok(inner)
    }

    /// `"[" ( ExprList ","? )? "]"`
    #[inline(never)]
    fn parse_list(&mut self, depth: usize) -> PResult<Node> {
        let open = self.bump()?;
        let mut elems = Vec::new();
        let mut elems_height = 0;
        let close = loop {
            if let Some(close) = self.eat(Token::RBracket)? {
                break close;
            }
            if elems.len() >= MAX_LIST_ITEMS {
                let at = self.peek()?;
                return Err(self.long_list(at));
            }
            let elem = self.parse_expr(depth + 1)?;
            elems_height = elems_height.max(elem.height);
            elems.push(*elem.expr);
            let tok = self.bump()?;
            match tok.kind {
                Some(Token::Comma) => {}
                Some(Token::RBracket) => break tok,
                _ => return Err(self.expected("`,` or `]`", tok)),
            }
        };
        let height = 1 + elems_height;
        let span = self.span(open.start, close.end);
        self.check(depth, height, span)?;
        Ok(Node::new(ExprKind::List(elems), span, height))
    }

    /// `Arguments ::= "(" ExprList? ")"`, after the `(`; the arguments sit at
    /// `depth`. Returns them, their greatest height and the `)`.
    fn parse_args(&mut self, depth: usize) -> PResult<(Vec<Expr>, usize, Tok)> {
        let mut args = Vec::new();
        let mut height = 0;
        if let Some(close) = self.eat(Token::RParen)? {
            return Ok((args, height, close));
        }
        loop {
            let arg = self.parse_expr(depth)?;
            height = height.max(arg.height);
            args.push(*arg.expr);
            let tok = self.bump()?;
            match tok.kind {
                Some(Token::Comma) => {
                    let next = self.peek()?;
                    if next.is(Token::RParen) {
                        return Err(self.trailing_comma(next));
                    }
                }
                Some(Token::RParen) => return Ok((args, height, tok)),
                _ => return Err(self.expected("`,` or `)`", tok)),
            }
        }
    }

    /// The name after a `.`: an identifier that is not a keyword.
    fn field_name(&mut self) -> PResult<Tok> {
        let tok = self.bump()?;
        if tok.is(Token::Ident) && !ast::is_keyword(self.slice(tok)) {
            return Ok(tok);
        }
        Err(self.bad_field_name(tok))
    }

    /// Consumes the closing `kind` of `open`, or fails.
    fn close(&mut self, kind: Token, open: Tok) -> PResult<Tok> {
        let tok = self.bump()?;
        if tok.is(kind) {
            return Ok(tok);
        }
        Err(self.unclosed(kind, open, tok))
    }

    /// A number literal, with the `-` before it if there is one.
    fn number(&self, tok: Tok, minus: Option<Tok>) -> PResult<Node> {
        let digits = self.slice(tok);
        let start = minus.map_or(tok.start, |m| m.start);
        let span = self.span(start, tok.end);
        let kind = if tok.is(Token::Int) {
            let magnitude = match digits.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => digits.parse::<u64>(),
            };
            let value = magnitude.ok().and_then(|m| {
                let m = i128::from(m);
                i64::try_from(if minus.is_some() { -m } else { m }).ok()
            });
            match value {
                Some(v) => ExprKind::Int(v),
                None => return Err(self.out_of_range("integer", start, tok.end)),
            }
        } else {
            match digits.parse::<f64>() {
                Ok(v) if v.is_finite() => ExprKind::Double(if minus.is_some() { -v } else { v }),
                _ => return Err(self.out_of_range("double", start, tok.end)),
            }
        };
        Ok(Node::new(kind, span, 1))
    }

    // ---- depth ------------------------------------------------------------------

    /// Fails before recursing into a node that would sit `depth` levels deep
    /// when that is already past the limit.
    fn enter(&mut self, depth: usize) -> PResult<()> {
        if depth >= MAX_EXPR_DEPTH {
            let tok = self.peek()?;
            return Err(self.too_deep(self.tok_span(tok)));
        }
        Ok(())
    }

    /// Fails when a node of `height` sitting `depth` levels deep reaches past
    /// the limit.
    fn check(&self, depth: usize, height: usize, span: Span) -> PResult<()> {
        if depth + height > MAX_EXPR_DEPTH {
            return Err(self.too_deep(span));
        }
        Ok(())
    }

    // ---- errors (cold, out of the recursive path's frames) -------------------------

    #[cold]
    #[inline(never)]
    fn too_deep(&self, span: Span) -> Box<Diagnostic> {
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
    fn expected(&self, what: &str, found: Tok) -> Box<Diagnostic> {
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
    fn unclosed(&self, kind: Token, open: Tok, found: Tok) -> Box<Diagnostic> {
        let closer = if kind == Token::RParen { ")" } else { "]" };
        let opener = self.slice(open);
        self.expected(&format!("`{closer}` to close `{opener}`"), found)
    }

    #[cold]
    #[inline(never)]
    fn empty(&self) -> Box<Diagnostic> {
        let end = self.text.len();
        Box::new(
            Diagnostic::new(Code::ExprSyntax, "empty expression")
                .at(self.span(end, end))
                .label("expected an expression"),
        )
    }

    #[cold]
    #[inline(never)]
    fn trailing(&self, tok: Tok) -> Box<Diagnostic> {
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
    fn missing_colon(&self, found: Tok) -> Box<Diagnostic> {
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
    fn optional_index(&self, tok: Tok) -> Box<Diagnostic> {
        Box::new(
            self.expected("an expression", tok)
                .help("optional indexing `[?` is not supported"),
        )
    }

    #[cold]
    #[inline(never)]
    fn trailing_comma(&self, tok: Tok) -> Box<Diagnostic> {
        Box::new(
            self.expected("an expression", tok)
                .help("remove the trailing `,`: argument lists do not take one"),
        )
    }

    #[cold]
    #[inline(never)]
    fn bad_field_name(&self, tok: Tok) -> Box<Diagnostic> {
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
    fn reserved(&self, tok: Tok) -> Box<Diagnostic> {
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
    fn map_literal(&self, tok: Tok) -> Box<Diagnostic> {
        Box::new(
            Diagnostic::new(Code::ExprSyntax, "map literals are not supported")
                .at(self.tok_span(tok))
                .label("map literal")
                .help("map literals are not part of hookc's expression language"),
        )
    }

    #[cold]
    #[inline(never)]
    fn leading_dot(&self, tok: Tok) -> Box<Diagnostic> {
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
    fn mixed_unary(&self, prev_tok: Tok, op: UnaryOp, tok: Tok) -> Box<Diagnostic> {
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
    fn out_of_range(&self, what: &str, start: usize, end: usize) -> Box<Diagnostic> {
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
    fn long_string(&self, tok: Tok, len: usize) -> Box<Diagnostic> {
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
    fn long_list(&self, at: Tok) -> Box<Diagnostic> {
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
    fn bad_escape(&self, tok: Tok, e: lexer::EscapeError) -> Box<Diagnostic> {
        Box::new(
            Diagnostic::new(Code::BadLiteral, e.message)
                .at(self.span(tok.start + e.range.start, tok.start + e.range.end))
                .label(e.label)
                .help(
                    "the escapes are `\\\\ \\' \\\" \\` \\? \\a \\b \\f \\n \\r \\t \\v`, \
                     `\\xHH`, octal `\\000`..`\\377`, `\\uHHHH` and `\\UHHHHHHHH`; \
                     a raw string `r'...'` takes backslashes literally",
                ),
        )
    }

    #[cold]
    #[inline(never)]
    fn lex_error(&self, e: LexError, start: usize, end: usize) -> Box<Diagnostic> {
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
                if end < self.text.len() {
                    d.help(
                        "a quoted string must end on the line it starts on; \
                         write `\\n` for a line break, or use a triple-quoted string `'''...'''`",
                    )
                } else {
                    d
                }
            }
        };
        Box::new(d)
    }

    /// Tokens that are recognised only to be rejected with a precise message.
    #[cold]
    #[inline(never)]
    fn unsupported(&self, tok: Tok) -> Box<Diagnostic> {
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

/// The binary operator a token stands for.
fn binary_op(kind: Token) -> Option<BinaryOp> {
    Some(match kind {
        Token::OrOr | Token::Or => BinaryOp::Or,
        Token::AndAnd | Token::And => BinaryOp::And,
        Token::EqEq => BinaryOp::Eq,
        Token::NotEq => BinaryOp::Ne,
        Token::Lt => BinaryOp::Lt,
        Token::Le => BinaryOp::Le,
        Token::Gt => BinaryOp::Gt,
        Token::Ge => BinaryOp::Ge,
        Token::In => BinaryOp::In,
        Token::Plus => BinaryOp::Add,
        Token::Minus => BinaryOp::Sub,
        Token::Star => BinaryOp::Mul,
        Token::Slash => BinaryOp::Div,
        Token::Percent => BinaryOp::Rem,
        _ => return None,
    })
}

/// The whitespace the lexer skips (CEL's: space, tab, CR, LF, form feed).
fn is_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | '\u{0C}')
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;
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
            ExprKind::String(s) => format!("{s:?}"),
            ExprKind::List(items) => format!("[{}]", list(items)),
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
        assert_eq!(ok(r#""a\tb""#).kind, ExprKind::String("a\tb".into()));
        assert_eq!(ok(r"'\''").kind, ExprKind::String("'".into()));
        assert_eq!(ok(r"r'\d+'").kind, ExprKind::String(r"\d+".into()));
        assert_eq!(ok(r#"R"\n""#).kind, ExprKind::String(r"\n".into()));
        assert_eq!(ok("'''a\nb'''").kind, ExprKind::String("a\nb".into()));
        assert_eq!(ok(r#""""x"y""""#).kind, ExprKind::String("x\"y".into()));
        assert_eq!(
            ok(r"'\u00e9\U0001F431\x41\101'").kind,
            ExprKind::String("é🐱AA".into())
        );
        assert_eq!(ok("'ίσος'").kind, ExprKind::String("ίσος".into()));
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
            "{'a': 1}",
            S,
            "map literals are not supported",
            (0, 1),
            "map literal",
            Some("map literals are not part of hookc's expression language"),
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
}
