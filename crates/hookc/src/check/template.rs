//! `${...}` templates in action parameter strings (`docs/src/semantics.md#templates`): parsing, the
//! checked form ([`Template`]) and its canonical source text.
//!
//! A string parameter may hold `${...}` references; `$${` is a literal `${`.
//! The text inside `${...}` is an expression of the `when` language, parsed
//! by the same parser. When it is a context path
//! (`error.headers['retry-after']`, what `resolve::path::from_ast` reads,
//! so a template reference and a YAML `path:` accept exactly the same
//! spellings) it is a [`TemplatePiece::Path`], as before templates took
//! expressions; anything else (`${a ?? b}`, `${s.truncate(80)}`) is resolved
//! like a condition into a [`TemplatePiece::Expr`]. A string with no
//! reference is not a template: [`parse`] returns it as
//! [`Parsed::Literal`], with the `$${` escapes resolved.
//!
//! The closing `}` of a reference is found with the lexer's string rules
//! (quotes, raw strings, escapes, triple quotes) and counting `{`/`}`
//! pairs, so a `}` inside a string literal (`${s.split('}')}`) does not end
//! the reference.
//!
//! Escapes are scanned left to right: `$${` is always the escape, `${` starts a
//! reference, any other `$` is itself. So a `$` written directly before a
//! reference (`$${x}`) reads as the escape; there is no way to write a literal
//! `$` immediately followed by a reference, as in HCL.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::IrExpr;
use crate::span::{Origin, Span};
use hookc_runtime::bytecode::path::{PathId, PathTable};

/// A string parameter as read: plain text, or a template.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// No `${...}` reference; the text with every `$${` turned into `${`.
    Literal(String),
    /// At least one reference.
    Template(Template),
}

/// A string with at least one `${...}` reference, split into literal text,
/// interned paths and expressions.
///
/// INVARIANT (template shape): there is at least one reference
/// ([`TemplatePiece::Path`] or [`TemplatePiece::Expr`]);
/// literal parts are non-empty and never adjacent; a literal part followed by
/// a path never ends in `$` (the text `$${` is the escape, so such a template
/// could not be written). Only [`parse`] builds templates, and it maintains
/// all three, which is what makes [`Template::source_text`] round-trip.
///
/// Equality compares the parts only, not where the references were written.
#[derive(Debug, Clone)]
pub struct Template {
    parts: Vec<TemplatePiece>,
    /// The source span of each reference (path or expression part), in order.
    spans: Vec<Span>,
}

impl PartialEq for Template {
    fn eq(&self, other: &Template) -> bool {
        self.parts == other.parts
    }
}

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TemplatePiece {
    /// Literal text, escapes resolved (a written `$${` is `${` here).
    Lit(String),
    /// A reference: the value at this context path.
    Path(PathId),
    /// A reference: the value of an expression that is not a bare path.
    Expr(TemplateExpr),
}

/// An expression reference (`${a ?? b}`): its resolved IR and the text it
/// was written as. Two are equal when their texts are (the IR carries
/// spans, which differ between two writings of the same template).
#[derive(Debug, Clone)]
pub struct TemplateExpr {
    /// The resolved expression (not yet type-checked: that needs the
    /// event's schema, `check::actions` does it).
    pub expr: Box<IrExpr>,
    /// The text between `${` and `}`, trimmed.
    pub text: String,
}

impl PartialEq for TemplateExpr {
    fn eq(&self, other: &TemplateExpr) -> bool {
        self.text == other.text
    }
}

impl Eq for TemplateExpr {}

impl std::hash::Hash for TemplateExpr {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

impl Template {
    /// The parts in order.
    pub fn parts(&self) -> &[TemplatePiece] {
        &self.parts
    }

    /// Whether the template is exactly one reference and nothing else
    /// (`"${event.tokens_used}"`, `"${a ?? b}"`): its value keeps the
    /// referenced value's JSON type instead of being stringified.
    pub fn is_whole(&self) -> bool {
        matches!(
            self.parts.as_slice(),
            [TemplatePiece::Path(_) | TemplatePiece::Expr(_)]
        )
    }

    /// The expression of a whole template that is one expression.
    pub fn whole_expr(&self) -> Option<&TemplateExpr> {
        match self.parts.as_slice() {
            [TemplatePiece::Expr(e)] => Some(e),
            _ => None,
        }
    }

    /// The path of a whole template ([`Template::is_whole`]).
    pub fn whole_path(&self) -> Option<PathId> {
        match self.parts.as_slice() {
            [TemplatePiece::Path(id)] => Some(*id),
            _ => None,
        }
    }

    /// Every referenced path with the span it was written at, in order
    /// (a path referenced twice appears twice).
    pub fn refs(&self) -> impl Iterator<Item = (PathId, Span)> + '_ {
        self.holes().filter_map(|(p, span)| match p {
            TemplatePiece::Path(id) => Some((*id, span)),
            _ => None,
        })
    }

    /// Every expression reference with the span it was written at, in order.
    pub fn exprs(&self) -> impl Iterator<Item = (&TemplateExpr, Span)> + '_ {
        self.holes().filter_map(|(p, span)| match p {
            TemplatePiece::Expr(e) => Some((e, span)),
            _ => None,
        })
    }

    /// Every reference (path or expression part) with its span, in order.
    fn holes(&self) -> impl Iterator<Item = (&TemplatePiece, Span)> + '_ {
        self.parts
            .iter()
            .filter(|p| !matches!(p, TemplatePiece::Lit(_)))
            .zip(self.spans.iter().copied())
    }

    /// The canonical text: literals with `${` written back as `$${`, paths in
    /// their canonical spelling. `parse(t.source_text(paths))` gives `t` again
    /// (with the same table). An id that is not in `paths` is written as
    /// `${<unknown>}`, which does not parse.
    pub fn source_text(&self, paths: &PathTable) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                TemplatePiece::Lit(text) => out.push_str(&escape_literal(text)),
                TemplatePiece::Path(id) => {
                    out.push_str("${");
                    match paths.get(*id) {
                        Some(path) => out.push_str(&path.to_string()),
                        None => out.push_str("<unknown>"),
                    }
                    out.push('}');
                }
                TemplatePiece::Expr(e) => {
                    out.push_str("${");
                    out.push_str(&e.text);
                    out.push('}');
                }
            }
        }
        out
    }
}

/// Reads a parameter string: a [`Parsed::Literal`] when it holds no `${`
/// reference, else a [`Parsed::Template`] with its paths interned in `paths`.
///
/// `origin` maps offsets in `text` to the file. Errors: an unterminated or
/// empty `${` ([`Code::BadTemplate`]), and the first of whatever the
/// expression parser and resolver report for the text inside the braces.
#[allow(clippy::result_large_err)] // cold path: one diagnostic per bad template
pub fn parse(
    text: &str,
    origin: Origin,
    paths: &mut PathTable,
    locals: [&[crate::resolve::ast_to_ir::LocalDef]; 2],
) -> Result<Parsed, Diagnostic> {
    let [policy_locals, own_locals] = locals;
    let is_local = |name: &str| {
        policy_locals
            .iter()
            .chain(own_locals)
            .any(|l| l.name == name)
    };
    let mut pieces = scan(text, origin)?;
    match pieces.as_mut_slice() {
        [] => return Ok(Parsed::Literal(String::new())),
        [ScanPiece::Lit(s)] => return Ok(Parsed::Literal(std::mem::take(s))),
        _ => {}
    }
    let mut parts = Vec::with_capacity(pieces.len());
    let mut spans = Vec::new();
    for piece in pieces {
        match piece {
            ScanPiece::Lit(s) => parts.push(TemplatePiece::Lit(s)),
            ScanPiece::Ref { inner, inner_start } => {
                let in_ref =
                    |d: Diagnostic| d.note(format!("in the template reference `${{{inner}}}`"));
                let ast = crate::syntax::parse(inner, shift(origin, inner_start))
                    .map_err(|d| match d.help {
                        None if shell_expansion(inner) => d.help(format!(
                            "`${{{inner}}}` reads as a shell's parameter expansion: for that \
                             text, write `$${{{inner}}}` (`$${{` is a literal `${{`)"
                        )),
                        _ => d,
                    })
                    .map_err(in_ref)?;
                spans.push(ast.span);
                // A path, unless it starts at a local name.
                if let Some(path) =
                    crate::resolve::path::from_ast(&ast).filter(|p| !is_local(p.root_name()))
                {
                    parts.push(TemplatePiece::Path(paths.intern(path)));
                    continue;
                }
                let mut found = Diagnostics::new();
                let resolved = crate::resolve::ast_to_ir::Resolver::new(paths, &mut found)
                    .with_locals(policy_locals, own_locals)
                    .resolve(&ast);
                match resolved {
                    Some(expr) => parts.push(TemplatePiece::Expr(TemplateExpr {
                        expr: Box::new(expr),
                        text: inner.trim().to_owned(),
                    })),
                    None => {
                        let first = found.into_vec().into_iter().next().unwrap_or_else(|| {
                            Diagnostic::new(
                                Code::BadTemplate,
                                "the template reference does not resolve",
                            )
                            .at(ast.span)
                        });
                        return Err(in_ref(first));
                    }
                }
            }
        }
    }
    Ok(Parsed::Template(Template { parts, spans }))
}

/// Whether a template reference's text is a shell's parameter expansion
/// rather than an expression (`HOME:-/tmp`, `X:=1`, `#PATH`, `F%.txt`,
/// `P/a/b`): a shell command in a parameter wants it as text.
fn shell_expansion(inner: &str) -> bool {
    let name = inner.strip_prefix(['#', '!']).unwrap_or(inner);
    let end = name
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(name.len());
    let (ident, rest) = name.split_at(end);
    let ident_ok = ident.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    ident_ok
        && (rest.is_empty() && name.len() < inner.len()
            || [":-", ":=", ":+", ":?", "%", "#", "/", "^", ","]
                .iter()
                .any(|op| rest.starts_with(op)))
}

/// The text of a string that holds no `${` reference, with `$${` escapes
/// resolved; `None` when it holds a reference (or a malformed `${`).
///
/// For places where a template is not allowed, such as an action type's
/// default values: they follow the same escaping as parameters.
pub fn literal_text(text: &str) -> Option<String> {
    match scan(text, Origin::Whole(Span::new(crate::span::FileId(0), 0, 0))) {
        Ok(pieces) => match pieces.as_slice() {
            [] => Some(String::new()),
            [ScanPiece::Lit(s)] => Some(s.clone()),
            _ => None,
        },
        Err(_) => None,
    }
}

/// The `{name}` and `{a.b}` pieces of a parameter string that are literal
/// text but read like a template reference with its `$` left out (seed
/// 002's `{variable}` interpolation): a `{` not preceded by `$`, a dotted
/// identifier path, and a `}`. Each is `(start, end, name)`: the byte range
/// of `{name}` in `text` and the name. `${...}` references and `$${`
/// escapes are not such pieces (their `{` follows a `$`).
pub fn bare_braces(text: &str) -> Vec<(usize, usize, &str)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    for (open, _) in text.match_indices('{') {
        if open > 0 && bytes.get(open - 1) == Some(&b'$') {
            continue;
        }
        let Some(rest) = text.get(open + 1..) else {
            continue;
        };
        let Some(close) = rest.find('}') else {
            continue;
        };
        let name = rest.get(..close).unwrap_or_default();
        let is_ident = |part: &str| {
            let mut chars = part.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if name.split('.').all(is_ident) {
            out.push((open, open + close + 2, name));
        }
    }
    out
}

/// Writes `text` so that [`parse`] reads it back as this literal: every `${`
/// becomes `$${`.
pub fn escape_literal(text: &str) -> String {
    text.replace("${", "$${")
}

/// A scanned piece of a parameter string.
enum ScanPiece<'a> {
    /// Literal text, escapes resolved; never empty, never two in a row.
    Lit(String),
    /// The text between `${` and `}`, and its offset in the string.
    Ref { inner: &'a str, inner_start: usize },
}

/// Splits a parameter string into literal text and references.
#[allow(clippy::result_large_err)] // cold path: one diagnostic per bad template
fn scan(text: &str, origin: Origin) -> Result<Vec<ScanPiece<'_>>, Diagnostic> {
    let mut pieces = Vec::new();
    let mut lit = String::new();
    let mut i = 0;
    while let Some(rest) = text.get(i..) {
        // Copy everything up to the next `$` as is.
        let Some(dollar) = rest.find('$') else {
            lit.push_str(rest);
            break;
        };
        lit.push_str(rest.get(..dollar).unwrap_or_default());
        i += dollar;
        let rest = rest.get(dollar..).unwrap_or_default();
        if rest.starts_with("$${") {
            lit.push_str("${");
            i += 3;
        } else if rest.starts_with("${") {
            let inner_start = i + 2;
            let close = find_close(text, inner_start)
                .map_err(|in_quote| unterminated(text, origin, i, in_quote))?;
            let inner = text.get(inner_start..close).unwrap_or_default();
            if inner.trim().is_empty() {
                return Err(Diagnostic::new(Code::BadTemplate, "empty `${}` in template")
                    .at(origin.span(i, close + 1))
                    .label("no path inside")
                    .help("write a path inside, as in `${error.message}`, or write `$${` for a literal `${`"));
            }
            if !lit.is_empty() {
                pieces.push(ScanPiece::Lit(std::mem::take(&mut lit)));
            }
            pieces.push(ScanPiece::Ref { inner, inner_start });
            i = close + 1;
        } else {
            lit.push('$');
            i += 1;
        }
    }
    if !lit.is_empty() {
        pieces.push(ScanPiece::Lit(lit));
    }
    Ok(pieces)
}

/// The offset of the `}` closing a reference whose text starts at `from`:
/// the first `}` outside string literals (scanned with the lexer's string
/// rules) that closes no `{` of the reference. `Err(true)` when the text ends
/// inside a string literal, `Err(false)` when it ends outside one.
fn find_close(text: &str, from: usize) -> Result<usize, bool> {
    let bytes = text.get(from..).ok_or(false)?.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\'' | b'"' => {
                // A raw string (`r'...'`: no escapes) has its prefix just
                // before the quote, as the lexer reads it.
                let raw = i > 0 && matches!(bytes.get(i - 1), Some(b'r' | b'R'));
                let rest = bytes.get(i + 1..).unwrap_or_default();
                match crate::syntax::lexer::scan_string(rest, b, raw) {
                    Ok(len) => i += 1 + len,
                    Err(_) => return Err(true),
                }
                continue;
            }
            b'{' => depth += 1,
            b'}' if depth == 0 => return Ok(from + i),
            b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    Err(false)
}

fn unterminated(text: &str, origin: Origin, start: usize, in_quote: bool) -> Diagnostic {
    let d = Diagnostic::new(Code::BadTemplate, "unterminated `${` in template")
        .at(origin.span(start, text.len()))
        .label("this `${` is never closed");
    // A string literal that holds a line break ends there; in a decoded
    // value (YAML double quotes) the break was most likely written `\n`.
    let broken = in_quote && text.get(start..).is_some_and(|t| t.contains('\n'));
    match (broken, origin) {
        (true, Origin::Whole(_)) => d.help(
            "a string inside the reference holds a line break, where it ends: the YAML double \
             quotes around the value turned a `\\n` into one before the template was read; \
             write `\\\\n` there, or quote the YAML value with single quotes",
        ),
        (true, Origin::Exact { .. }) => d.help(
            "a string inside the reference holds a line break, where it ends: write `\\n` for \
             one",
        ),
        (false, _) if in_quote => d
            .help("close the reference with `}`, or write `$${` for a literal `${`")
            .note("a quoted key inside the reference is not closed either"),
        (false, _) => d.help("close the reference with `}`, or write `$${` for a literal `${`"),
    }
}

/// The origin of a text that starts `offset` bytes into the text of `origin`.
fn shift(origin: Origin, offset: usize) -> Origin {
    match origin {
        Origin::Exact { file, base } => Origin::Exact {
            file,
            base: base.saturating_add(u32::try_from(offset).unwrap_or(u32::MAX)),
        },
        Origin::Whole(span) => Origin::Whole(span),
    }
}

#[cfg(test)]
mod tests;
