//! Directive XML: the `<hook>` elements of a directive document, read into a
//! [`SourceFile`] (the format: `docs/src/policies/xml.md`).
//!
//! Every `<hook>` that is a child of a `<hooks>` element, anywhere in the
//! document, is a hook of the directive layer. Its attributes are `event`
//! (comma-separated for several), `when`, `id`, `priority`, `enabled`,
//! `replace` and `description`; its children are an optional `<when>` (text or CDATA) and
//! exactly one action element, named after the action type:
//!
//! ```xml
//! <hook id="budget" event="limit" priority="10">
//!   <when><![CDATA[limit_code == 'spend_exceeded' && cost.spend > 10.0]]></when>
//!   <escalate target="user_approval" timeout_seconds="7200"/>
//! </hook>
//! ```
//!
//! The action element's attributes are its parameters, untyped
//! ([`NodeKind::Text`](crate::frontend::doc::NodeKind::Text): the checker coerces them by the declared type);
//! `<param name="k">v</param>` children fill its object parameter. The seed's
//! shorthand `<directive>X</directive>` is `call_directive` with `directive: X`.
//!
//! An `<action_type>` child of `<hooks>` declares an action type, as a YAML
//! file's `action_types` does (see `action_types.rs`); an `<event>` child
//! declares an event, as a YAML file's `events` does (see `events.rs`).
//! A `<hooks>` element may declare the policy-wide `priority_order`,
//! `layer_order`, `default_priority`, `combine`, `attribution`, `on_error`
//! and `host` as attributes
//! (`<hooks priority_order="lower_first">`),
//! with the meaning and the spellings of a YAML file's top-level keys.
//!
//! Everything else in the document is ignored, but the whole document must be
//! well-formed XML: one root, matching tags, quoted and unique attributes, known
//! entities. Element text (`<when>`, `<param>`, `<directive>`) is trimmed of
//! surrounding whitespace. An expression that appears verbatim in the file gets
//! an exact [`Origin`], so its diagnostics point inside it; one with decoded
//! entities (`&amp;&amp;`) maps every position to the whole attribute or element.
//!
//! The reader is iterative (quick-xml's pull parser plus an explicit stack of
//! open elements), and nesting past
//! [`MAX_DOC_DEPTH`](hookc_runtime::limits::MAX_DOC_DEPTH) stops it with an error.
//!
//! This file holds the entry point, [`read`], and the reader's state; the
//! reader's methods are split by layer: `reader` (XML events, positions,
//! well-formedness), `hooks` (what the directive's hook elements mean),
//! `action_types` (the `<action_type>` declarations) and `events` (the
//! `<event>` declarations).

mod action_types;
mod events;
mod hooks;
mod locals;
mod reader;

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::Node;
use crate::frontend::{RawAction, RawCondition, SourceFile, SourceHook};
use crate::span::{FileId, Origin, Span, Spanned};
use hookc_runtime::limits::MAX_INPUT_BYTES;

/// The attributes a `<hook>` may have.
const HOOK_ATTRS: &[&str] = &[
    "event",
    "when",
    "id",
    "priority",
    "enabled",
    "replace",
    "description",
];

/// The attributes of `<hooks>` that hookc reads.
const HOOKS_ATTRS: &[&str] = &[
    "host",
    "priority_order",
    "layer_order",
    "default_priority",
    "combine",
    "attribution",
    "on_error",
];

/// Help for a hook without an action element.
const ACTION_HELP: &str = "add an action element such as `<retry/>`, \
     `<escalate target=\"user_approval\"/>` or `<directive>name</directive>`";

/// Help for text where an action expects attributes or `<param>` children.
const PARAM_HELP: &str = "an action's parameters are attributes (`<retry max_attempts=\"3\"/>`) \
     or `<param name=\"key\">value</param>` children";

/// Help for a bare `&` in XML.
const AMP_HELP: &str = "write `&&` as `&amp;&amp;` or `and`, or put the condition in \
     `<when><![CDATA[...]]></when>`";

/// Reads the hooks of one directive XML document.
///
/// Every problem is reported to `diags`. A malformed document stops the reader
/// at the first error; the hooks completed before it are returned. A hook with
/// an error in its structure (no event, no action) is left out; its `index`
/// is used up all the same, so default ids stay stable.
pub fn read(text: &str, file: FileId, diags: &mut Diagnostics) -> SourceFile {
    let mut source = SourceFile::default();
    if text.len() > MAX_INPUT_BYTES {
        diags.push(
            Diagnostic::new(
                Code::TooLarge,
                format!(
                    "XML file of {} bytes is larger than the limit of {MAX_INPUT_BYTES} bytes",
                    text.len()
                ),
            )
            .at(Span::new(file, 0, 0))
            .help("split the hooks over several files"),
        );
        return source;
    }
    let mut doc = DocReader {
        text,
        file,
        // quick-xml skips a byte order mark and counts positions after it.
        bom: if text.starts_with('\u{feff}') { 3 } else { 0 },
        diags,
        open: Vec::new(),
        hooks: Vec::new(),
        action_types: Vec::new(),
        events: Vec::new(),
        declared: SourceFile::default(),
        next_index: 0,
        root: Root::NotYet,
    };
    doc.run();
    source.hooks = doc.hooks;
    source.priority_order = doc.declared.priority_order;
    source.layer_order = doc.declared.layer_order;
    source.combine = doc.declared.combine;
    source.attribution = doc.declared.attribution;
    source.host = doc.declared.host;
    source.on_error = doc.declared.on_error;
    source.default_priority = doc.declared.default_priority;
    source.locals = doc.declared.locals;
    if let Some((_, first)) = doc.events.first() {
        let span = first.span;
        source.events = Some(Node {
            kind: crate::frontend::doc::NodeKind::Map(doc.events),
            span,
        });
    }
    if let Some((_, first)) = doc.action_types.first() {
        let span = first.span;
        source.action_types = Some(Node {
            kind: crate::frontend::doc::NodeKind::Map(doc.action_types),
            span,
        });
    }
    source
}

/// The reader stopped at a fatal error (already reported).
struct Stop;

/// Where the reader is relative to the document's root element.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Root {
    /// Before it.
    NotYet,
    /// Inside it.
    Open,
    /// After it.
    Closed,
}

/// One open element.
struct Open {
    /// Its name, for the "not closed" error.
    name: String,
    /// Its start tag, `<` to `>`.
    tag: Span,
    /// What it is to the reader.
    frame: OpenElement,
}

/// What an open element is.
enum OpenElement {
    /// An element outside any hook, which is not `<hooks>`.
    Plain,
    /// A `<hooks>` element: its `<hook>` children are hooks.
    Hooks,
    /// A hook.
    Hook(Box<HookBuilder>),
    /// A hook's `<when>`.
    When(WhenBuilder),
    /// A `<let>`, in `<hooks>` or in a hook.
    Let(LetBuilder),
    /// A hook's action element.
    Action(Box<ActionBuilder>),
    /// A `<param>` of an action.
    Param(ParamBuilder),
    /// An `<action_type>` declaration in `<hooks>`.
    ActionType(Box<action_types::ActionTypeBuilder>),
    /// A `<parameter>` of an `<action_type>` (read at its start tag).
    Parameter,
    /// An `<event>` declaration in `<hooks>`.
    Event(Box<events::EventBuilder>),
    /// The `<context>` of an `<event>`: JSON text.
    EventContext(TextBuf),
    /// A hook's `<table>` of `<row>`s.
    Table(Box<TableBuilder>),
    /// A `<row>` of a `<table>` (read at its start tag).
    Row,
    /// An element already reported, with everything inside it.
    Skip,
}

/// The kind of the innermost open element, without its data.
#[derive(Clone, Copy)]
enum Parent {
    Document,
    Plain,
    Hooks,
    Hook,
    When,
    Let,
    Action,
    Param,
    ActionType,
    Parameter,
    Event,
    EventContext,
    Table,
    Row,
    Skip,
}

/// A hook being read.
struct HookBuilder {
    index: usize,
    tag: Span,
    id: Option<Spanned<String>>,
    event_given: bool,
    events: Vec<Spanned<String>>,
    priority: Option<Spanned<i64>>,
    enabled: bool,
    replace: Option<Span>,
    description: Option<String>,
    /// `Some(true)` after a `when` attribute, `Some(false)` after a `<when>`.
    when_from_attribute: Option<bool>,
    condition: Option<RawCondition>,
    action_seen: bool,
    action: Option<RawAction>,
    /// `<table>`, read into the shape of YAML's `table:` mapping.
    table: Option<Node>,
    /// Its `<let>`s.
    locals: Vec<crate::frontend::RawLocal>,
    text_reported: bool,
}

/// A `<table on="PATH">` being read: its attributes and `<row>`s, each a
/// mapping of its attributes (as YAML's `table:` is written).
struct TableBuilder {
    tag: Span,
    entries: Vec<(crate::frontend::doc::Key, Node)>,
    rows: Vec<Node>,
}

/// A `<let>` being read: its name (`None`: missing or not a name,
/// reported) and its text.
struct LetBuilder {
    name: Option<Spanned<String>>,
    text: TextBuf,
}

/// A `<when>` being read.
struct WhenBuilder {
    /// A second condition, already reported: dropped at the end.
    discard: bool,
    text: TextBuf,
}

/// An action element being read.
struct ActionBuilder {
    name: Spanned<String>,
    tag: Span,
    /// A second action of its hook, already reported: dropped at the end.
    discard: bool,
    params: Vec<(Spanned<String>, Node)>,
    xml_params: Vec<(Spanned<String>, Node)>,
    text: TextBuf,
}

/// A `<param>` being read.
struct ParamBuilder {
    name: Option<Spanned<String>>,
    text: TextBuf,
}

/// One attribute, decoded, with its spans.
struct Attr {
    name: String,
    name_span: Span,
    /// The decoded, normalized value.
    value: String,
    /// The raw value between the quotes.
    value_span: Span,
    /// Whether byte `i` of `value` is byte `value_span.start + i` of the file
    /// (no entity decoded, no line break folded).
    exact: bool,
}

/// Element text gathered from text, CDATA and entity events.
#[derive(Default)]
struct TextBuf {
    text: String,
    /// `(start in text, file offset if the piece is verbatim in the file)`.
    pieces: Vec<(usize, Option<usize>)>,
}

/// Trimmed element text with where it came from.
struct Text {
    text: String,
    /// The trimmed text in the file, or the whole element.
    span: Span,
    origin: Origin,
}

impl TextBuf {
    fn push(&mut self, piece: &str, file_offset: Option<usize>) {
        self.pieces.push((self.text.len(), file_offset));
        self.text.push_str(piece);
    }

    /// The text without surrounding whitespace, `None` when blank. Exact when the
    /// trimmed text lies inside one verbatim piece, else mapped to `whole`.
    fn finish(self, whole: Span) -> Option<Text> {
        let trimmed = trim_xml(&self.text);
        if trimmed.is_empty() {
            return None;
        }
        let start = self.text.len() - self.text.trim_start_matches(is_xml_space).len();
        let end = start + trimmed.len();
        let mut exact = None;
        for (i, &(piece_start, offset)) in self.pieces.iter().enumerate() {
            let piece_end = self
                .pieces
                .get(i + 1)
                .map_or(self.text.len(), |&(next, _)| next);
            if piece_start <= start && end <= piece_end {
                exact = offset.map(|o| o + (start - piece_start));
            }
        }
        let (span, origin) = match exact {
            Some(base) => (
                Span::new(whole.file, base, base + trimmed.len()),
                Origin::Exact {
                    file: whole.file,
                    base: u32::try_from(base).unwrap_or(u32::MAX),
                },
            ),
            None => (whole, Origin::Whole(whole)),
        };
        Some(Text {
            text: trimmed.to_owned(),
            span,
            origin,
        })
    }
}

/// XML whitespace (S production).
fn is_xml_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// `s` without surrounding XML whitespace.
fn trim_xml(s: &str) -> &str {
    s.trim_matches(is_xml_space)
}

/// The reader's state.
struct DocReader<'t, 'd> {
    text: &'t str,
    file: FileId,
    /// Bytes of a byte order mark that quick-xml's positions leave out.
    bom: usize,
    diags: &'d mut Diagnostics,
    open: Vec<Open>,
    hooks: Vec<SourceHook>,
    /// The `<action_type>` definitions, as a YAML `action_types` mapping.
    action_types: Vec<(crate::frontend::doc::Key, Node)>,
    /// The `<event>` declarations, as a YAML `events` mapping.
    events: Vec<(crate::frontend::doc::Key, Node)>,
    /// What the `<hooks>` elements declare (`priority_order`, `layer_order`,
    /// `default_priority`).
    declared: SourceFile,
    next_index: usize,
    root: Root,
}

#[cfg(test)]
mod tests;
