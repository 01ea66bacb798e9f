//! YAML text → the spanned document tree [`crate::frontend::doc::Node`].
//!
//! This module owns everything hookc knows about YAML as a syntax: it drives the
//! `saphyr-parser` event stream (pulled one event at a time, never recursively),
//! types plain scalars by the YAML 1.2 core schema, expands aliases, rejects
//! duplicate keys, and turns the parser's character positions into the byte spans
//! every diagnostic points at. It knows nothing about hooks; see
//! [`crate::frontend::yaml`] for that.
//!
//! # Input safety
//! - input longer than [`MAX_INPUT_BYTES`] is refused before parsing;
//! - nesting deeper than [`MAX_DOC_DEPTH`] is refused while events arrive, so
//!   neither building nor dropping the tree can overflow the stack;
//! - the number of nodes, aliases expanded, is bounded by [`MAX_DOC_NODES`]: each
//!   anchored node remembers its size, and an alias is refused *before* it is
//!   cloned, so an alias bomb fails after at most that many nodes;
//! - likewise the scalar text that aliases copy is bounded by
//!   [`MAX_ALIAS_BYTES`] (each anchored node remembers its bytes too), so a
//!   few aliases of a long string cannot expand to gigabytes.
//!
//! # Spans
//! `saphyr-parser` reports positions in characters, and its token ends are not
//! always tight (a quoted scalar's end may include a trailing comment, a block
//! scalar's start is its first content line). Spans are therefore rebuilt from
//! the source: a scalar covers its text including quotes or its `|`/`>` header,
//! without anchor and tag; a collection covers from its `-`, first key or opening
//! bracket to its last item or closing bracket. An expanded alias keeps the spans
//! of the anchored node it copies (where that text was written).
//!
//! This file holds the entry points, [`parse`] and [`origin_of`]; the work is
//! in `builder` (events into the tree), `scalar` (typing scalars) and `spans`
//! (character positions as bytes, tight spans).
//!
//! [`MAX_DOC_DEPTH`]: hookc_runtime::limits::MAX_DOC_DEPTH
//! [`MAX_DOC_NODES`]: hookc_runtime::limits::MAX_DOC_NODES
//! [`MAX_ALIAS_BYTES`]: hookc_runtime::limits::MAX_ALIAS_BYTES

mod builder;
mod scalar;
mod spans;

use builder::TreeBuilder;

use crate::diag::{Code, Diagnostic};
use crate::frontend::doc::Node;
use crate::span::{FileId, Origin, Span};
use hookc_runtime::limits::MAX_INPUT_BYTES;
use saphyr_parser::{Event, Parser};

/// Parses one YAML document into a [`Node`] tree.
///
/// An empty document (nothing but whitespace and comments) is a `Null` node.
/// Returns the first problem found: malformed YAML, a second document, an
/// unsupported tag, a literal out of range, a duplicate or complex key, or input
/// past a limit of [`hookc_runtime::limits`].
#[expect(
    clippy::result_large_err,
    reason = "the shared front-end API; the error path is cold and taken once"
)]
pub fn parse(text: &str, file: FileId) -> Result<Node, Diagnostic> {
    parse_boxed(text, file).map_err(|d| *d)
}

/// A step that may fail with a (boxed, to keep `Result` small) diagnostic.
type Fallible<T = ()> = Result<T, Box<Diagnostic>>;

#[cold]
fn fail<T>(d: Diagnostic) -> Fallible<T> {
    Err(Box::new(d))
}

fn parse_boxed(text: &str, file: FileId) -> Fallible<Node> {
    if text.len() > MAX_INPUT_BYTES {
        return fail(
            Diagnostic::new(
                Code::TooLarge,
                format!(
                    "file is {} bytes, more than the limit of {MAX_INPUT_BYTES} bytes",
                    text.len()
                ),
            )
            .at(Span::new(file, 0, 0)),
        );
    }
    let mut builder = TreeBuilder::new(text, file);
    let mut parser = Parser::new_from_str(text);
    let mut documents = 0usize;
    while let Some(item) = parser.next_event() {
        let (event, span) = item.map_err(|e| builder.scan_error(&e))?;
        let start = builder.chars.byte(span.start.index());
        let end = builder.chars.byte(span.end.index()).max(start);
        match event {
            Event::StreamEnd => break,
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return fail(
                        Diagnostic::new(Code::YamlSyntax, "only one YAML document per file")
                            .at(Span::new(file, start, end))
                            .help("put each document in a file of its own"),
                    );
                }
            }
            Event::Nothing | Event::StreamStart | Event::DocumentEnd => {}
            Event::Scalar(value, style, anchor, tag) => {
                builder.scalar(&value, style, anchor, tag.as_deref(), start, end)?;
            }
            Event::Alias(id) => builder.alias(id, start, end)?,
            Event::SequenceStart(anchor, tag) => {
                builder.open(true, anchor, tag.as_deref(), start, end)?;
            }
            Event::MappingStart(anchor, tag) => {
                builder.open(false, anchor, tag.as_deref(), start, end)?;
            }
            Event::SequenceEnd | Event::MappingEnd => builder.close(start)?,
        }
    }
    Ok(builder.finish())
}

/// How offsets in the text of a string node map back to the file.
///
/// A plain scalar whose source text is its content maps exactly from its start;
/// a quoted one without escapes maps exactly from after its opening quote;
/// anything else (escapes, folding, block scalars, non-strings) maps every
/// offset to the whole node.
pub fn origin_of(text: &str, node: &Node) -> Origin {
    let whole = Origin::Whole(node.span);
    let Some(content) = node.as_str() else {
        return whole;
    };
    let Some(source) = text.get(node.span.range()) else {
        return whole;
    };
    if source == content {
        return Origin::Exact {
            file: node.span.file,
            base: node.span.start,
        };
    }
    for quote in ['"', '\''] {
        let inner = source
            .strip_prefix(quote)
            .and_then(|s| s.strip_suffix(quote));
        if inner == Some(content) {
            return Origin::Exact {
                file: node.span.file,
                base: node.span.start.saturating_add(1),
            };
        }
    }
    whole
}

#[cfg(test)]
mod tests;
