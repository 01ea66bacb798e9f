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
//!
//! This file holds the grammar; the error messages are in `errors`.
//!
//! [`Code::TooDeep`]: crate::diag::Code::TooDeep

mod errors;

use super::ast::{self, BinaryOp, Expr, ExprKind, UnaryOp};
use super::lexer::{self, Token};
use crate::diag::Diagnostic;
use crate::span::{Origin, Span};
use hookc_runtime::limits::{MAX_EXPR_DEPTH, MAX_LIST_ITEMS, MAX_STRING_BYTES};
use logos::Logos;

/// Parses one expression; the whole text must be consumed.
///
/// Returns the first syntax error: [`Code::ExprSyntax`], [`Code::TooDeep`]
/// past [`MAX_EXPR_DEPTH`], or [`Code::BadLiteral`] for a literal that cannot
/// be represented or is not supported (bad escape, int out of range, `1u`,
/// `b'..'`).
///
/// [`Code::ExprSyntax`]: crate::diag::Code::ExprSyntax
/// [`Code::TooDeep`]: crate::diag::Code::TooDeep
/// [`Code::BadLiteral`]: crate::diag::Code::BadLiteral
#[allow(clippy::result_large_err)] // the signature every front end shares; one error per parse
pub fn parse(text: &str, origin: Origin) -> Result<Expr, Diagnostic> {
    let mut parser = Parser {
        text,
        origin,
        lexer: Token::lexer(text),
        peeked: None,
        in_pattern: false,
    };
    parser.parse_all().map_err(|d| *d)
}

/// Errors are boxed inside the parser to keep its `Result`s small on the
/// recursive path.
type PResult<T> = Result<T, Box<Diagnostic>>;

/// The precedence of `??`, the loosest binary operator.
const LOOSEST_PREC: u8 = 2;

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
/// boxes anyway, and a small `ParsedNode` keeps the recursive path's frames small.
struct ParsedNode {
    expr: Box<Expr>,
    height: usize,
}

impl ParsedNode {
    fn new(kind: ExprKind, span: Span, height: usize) -> ParsedNode {
        ParsedNode {
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
    /// Parsing the arguments of `matches` or `glob`, whose pattern is a
    /// string literal: an invalid escape there was meant for the regex or
    /// glob, and its error suggests a raw string.
    in_pattern: bool,
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
    fn parse_expr(&mut self, depth: usize) -> PResult<ParsedNode> {
        self.enter(depth)?;
        let cond = self.parse_binary(depth, LOOSEST_PREC)?;
        if self.eat(Token::Question)?.is_none() {
            return Ok(cond);
        }
        self.parse_conditional(cond, depth)
    }

    /// The rest of `cond ? then : otherwise`, after the `?`.
    #[inline(never)]
    fn parse_conditional(&mut self, cond: ParsedNode, depth: usize) -> PResult<ParsedNode> {
        // As in CEL, the middle operand is a ConditionalOr: a nested
        // conditional there needs parentheses.
        let then = self.parse_binary(depth + 1, LOOSEST_PREC)?;
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
        Ok(ParsedNode::new(kind, span, height))
    }

    /// `ConditionalOr`, `ConditionalAnd`, `Relation`, `Addition` and
    /// `Multiplication`, by precedence climbing: parses the operators that bind
    /// at least as tightly as `min_prec`, all left-associative.
    fn parse_binary(&mut self, depth: usize, min_prec: u8) -> PResult<ParsedNode> {
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

    fn binary(
        &self,
        op: BinaryOp,
        tok: Tok,
        lhs: ParsedNode,
        rhs: ParsedNode,
        depth: usize,
    ) -> PResult<ParsedNode> {
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
        Ok(ParsedNode::new(kind, span, height))
    }

    /// `Unary ::= Member | NotOp+ Member | "-"+ Member`, where a `-` right
    /// before a number literal belongs to the literal.
    fn parse_unary(&mut self, depth: usize) -> PResult<ParsedNode> {
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
            node = ParsedNode::new(kind, span, height);
        }
        Ok(node)
    }

    /// `Member ::= Primary ( "." IDENT Arguments? | "[" Expr "]" )*`, after
    /// the `Primary`.
    fn parse_member(&mut self, mut node: ParsedNode, depth: usize) -> PResult<ParsedNode> {
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
    fn parse_select_or_method(&mut self, target: ParsedNode, depth: usize) -> PResult<ParsedNode> {
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
            return Ok(ParsedNode::new(kind, span, height));
        }
        let (args, args_height, close) = self.parse_args(depth + 1, &field)?;
        let height = 1 + target.height.max(args_height);
        self.check(depth, height, name_span)?;
        let span = target.expr.span.to(self.tok_span(close));
        let kind = ExprKind::Call {
            target: Some(target.expr),
            name: field,
            name_span,
            args,
        };
        Ok(ParsedNode::new(kind, span, height))
    }

    /// `"[" Expr "]"` after `target`.
    #[inline(never)]
    fn parse_index(&mut self, target: ParsedNode, depth: usize) -> PResult<ParsedNode> {
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
        Ok(ParsedNode::new(kind, span, height))
    }

    /// `Primary ::= IDENT Arguments? | "(" Expr ")" | "[" ( ExprList ","? )? "]" | Literal`
    fn parse_primary(&mut self, depth: usize) -> PResult<ParsedNode> {
        let tok = self.peek()?;
        let tok_span = self.tok_span(tok);
        let leaf = |kind| ParsedNode::new(kind, tok_span, 1);
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
                let style = lexer::string_style(self.slice(tok));
                Ok(leaf(ExprKind::String(value, style)))
            }
            Some(Token::True) => self.bump().map(|_| leaf(ExprKind::Bool(true))),
            Some(Token::False) => self.bump().map(|_| leaf(ExprKind::Bool(false))),
            Some(Token::Null) => self.bump().map(|_| leaf(ExprKind::Null)),
            Some(Token::Ident) => self.parse_ident_or_call(depth),
            Some(Token::LParen) => self.parse_parenthesized(depth),
            Some(Token::LBracket) => self.parse_list(depth),
            Some(Token::LBrace) => self.parse_map(depth),
            Some(Token::Dot) => Err(self.leading_dot(tok)),
            _ => Err(self.expected("an expression", tok)),
        }
    }

    /// `IDENT Arguments?`
    #[inline(never)]
    fn parse_ident_or_call(&mut self, depth: usize) -> PResult<ParsedNode> {
        let tok = self.bump()?;
        let name = self.slice(tok);
        let name_span = self.tok_span(tok);
        if ast::is_keyword(name) {
            return Err(self.reserved(tok));
        }
        if self.eat(Token::LParen)?.is_none() {
            return Ok(ParsedNode::new(
                ExprKind::Ident(name.to_owned()),
                name_span,
                1,
            ));
        }
        let (args, args_height, close) = self.parse_args(depth + 1, name)?;
        let height = 1 + args_height;
        self.check(depth, height, name_span)?;
        let kind = ExprKind::Call {
            target: None,
            name: name.to_owned(),
            name_span,
            args,
        };
        Ok(ParsedNode::new(
            kind,
            name_span.to(self.tok_span(close)),
            height,
        ))
    }

    /// `"(" Expr ")"`
    #[inline(never)]
    fn parse_parenthesized(&mut self, depth: usize) -> PResult<ParsedNode> {
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
    fn parse_list(&mut self, depth: usize) -> PResult<ParsedNode> {
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
        Ok(ParsedNode::new(ExprKind::List(elems), span, height))
    }

    /// `"{" ( Entry ( "," Entry )* ","? )? "}"`, `Entry ::= Expr ":" Expr`.
    fn parse_map(&mut self, depth: usize) -> PResult<ParsedNode> {
        let open = self.bump()?;
        let mut entries = Vec::new();
        let mut height = 0;
        let close = loop {
            if let Some(close) = self.eat(Token::RBrace)? {
                break close;
            }
            if entries.len() >= MAX_LIST_ITEMS {
                let at = self.peek()?;
                return Err(self.long_list(at));
            }
            let key = self.parse_expr(depth + 1)?;
            let colon = self.bump()?;
            if colon.kind != Some(Token::Colon) {
                return Err(self.expected("`:`", colon));
            }
            let value = self.parse_expr(depth + 1)?;
            height = height.max(key.height).max(value.height);
            entries.push((*key.expr, *value.expr));
            let tok = self.bump()?;
            match tok.kind {
                Some(Token::Comma) => {}
                Some(Token::RBrace) => break tok,
                _ => return Err(self.expected("`,` or `}`", tok)),
            }
        };
        let height = 1 + height;
        let span = self.span(open.start, close.end);
        self.check(depth, height, span)?;
        Ok(ParsedNode::new(ExprKind::Map(entries), span, height))
    }

    /// `Arguments ::= "(" ExprList? ")"` of function `name`, after the `(`;
    /// the arguments sit at `depth`. Returns them, their greatest height and
    /// the `)`.
    fn parse_args(&mut self, depth: usize, name: &str) -> PResult<(Vec<Expr>, usize, Tok)> {
        // A pattern's arguments: `matches`, `glob` and the function table's
        // pattern functions (`capture`, `path.match`).
        let pattern = matches!(name, "matches" | "glob")
            || hookc_runtime::functions::Builtin::ALL
                .iter()
                .any(|f| f.def().name == name && f.def().pattern().is_some());
        let outer = std::mem::replace(&mut self.in_pattern, pattern);
        let args = self.parse_arg_list(depth);
        self.in_pattern = outer;
        args
    }

    /// [`Self::parse_args`] without its state.
    fn parse_arg_list(&mut self, depth: usize) -> PResult<(Vec<Expr>, usize, Tok)> {
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
    fn number(&self, tok: Tok, minus: Option<Tok>) -> PResult<ParsedNode> {
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
        Ok(ParsedNode::new(kind, span, 1))
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
}

/// The binary operator a token stands for.
fn binary_op(kind: Token) -> Option<BinaryOp> {
    Some(match kind {
        Token::QuestionQuestion => BinaryOp::Coalesce,
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
mod tests;
