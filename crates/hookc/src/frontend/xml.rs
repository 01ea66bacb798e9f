//! Directive XML: the `<hook>` elements of a directive document, read into a
//! [`SourceFile`] (SPEC §1.4).
//!
//! Every `<hook>` that is a child of a `<hooks>` element, anywhere in the
//! document, is a hook of the directive layer. Its attributes are `event`
//! (comma-separated for several), `when`, `id`, `priority`, `enabled` and
//! `description`; its children are an optional `<when>` (text or CDATA) and
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
//! ([`NodeKind::Text`]: the checker coerces them by the declared type);
//! `<param name="k">v</param>` children fill its object parameter. The seed's
//! shorthand `<directive>X</directive>` is `call_directive` with `directive: X`.
//!
//! Everything else in the document is ignored, but the whole document must be
//! well-formed XML: one root, matching tags, quoted and unique attributes, known
//! entities. Element text (`<when>`, `<param>`, `<directive>`) is trimmed of
//! surrounding whitespace. An expression that appears verbatim in the file gets
//! an exact [`Origin`], so its diagnostics point inside it; one with decoded
//! entities (`&amp;&amp;`) maps every position to the whole attribute or element.
//!
//! The reader is iterative (quick-xml's pull parser plus an explicit stack of
//! open elements), and nesting past [`MAX_DOC_DEPTH`] stops it with an error.

use std::borrow::Cow;

use quick_xml::errors::{Error as XmlError, IllFormedError};
use quick_xml::escape::{resolve_xml_entity, EscapeError};
use quick_xml::events::attributes::AttrError;
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::{Node, NodeKind};
use crate::frontend::{Layer, RawAction, RawCondition, SourceFile, SourceHook};
use crate::span::{FileId, Origin, Span, Spanned};
use crate::suggest::{did_you_mean, help_for};
use hookc_runtime::limits::{MAX_DOC_DEPTH, MAX_HOOKS, MAX_INPUT_BYTES};

/// The attributes a `<hook>` may have.
const HOOK_ATTRS: &[&str] = &["event", "when", "id", "priority", "enabled", "description"];

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
        next_index: 0,
        root: Root::NotYet,
    };
    doc.run();
    source.hooks = doc.hooks;
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
    frame: Frame,
}

/// What an open element is.
enum Frame {
    /// An element outside any hook, which is not `<hooks>`.
    Plain,
    /// A `<hooks>` element: its `<hook>` children are hooks.
    Hooks,
    /// A hook.
    Hook(Box<HookBuilder>),
    /// A hook's `<when>`.
    When(WhenBuilder),
    /// A hook's action element.
    Action(Box<ActionBuilder>),
    /// A `<param>` of an action.
    Param(ParamBuilder),
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
    Action,
    Param,
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
    description: Option<String>,
    /// `Some(true)` after a `when` attribute, `Some(false)` after a `<when>`.
    when_from_attribute: Option<bool>,
    condition: Option<RawCondition>,
    action_seen: bool,
    action: Option<RawAction>,
    text_reported: bool,
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
    next_index: usize,
    root: Root,
}

impl<'t> DocReader<'t, '_> {
    fn run(&mut self) {
        let mut xml = Reader::from_str(self.text);
        let config = xml.config_mut();
        config.check_end_names = true;
        config.check_comments = true;
        config.allow_unmatched_ends = false;
        config.allow_dangling_amp = false;
        config.expand_empty_elements = false;
        config.trim_text(false);
        loop {
            let before = self.position(xml.buffer_position());
            let event = match xml.read_event() {
                Ok(event) => event,
                Err(err) => {
                    let at = self.position(xml.error_position());
                    let now = self.position(xml.buffer_position());
                    self.syntax_error(&err, at, now);
                    return;
                }
            };
            let after = self.position(xml.buffer_position());
            let step = match event {
                Event::Start(e) => self.start(&e, before, after, false),
                Event::Empty(e) => self.start(&e, before, after, true),
                Event::End(_) => {
                    self.end(after);
                    Ok(())
                }
                Event::Text(t) => {
                    let raw: &str = &t;
                    self.text_piece(raw, raw, self.offset_of(raw), before, after, false)
                }
                Event::CData(c) => {
                    let raw: &str = &c;
                    self.text_piece(raw, raw, self.offset_of(raw), before, after, true)
                }
                Event::GeneralRef(r) => self.general_ref(&r, before, after),
                Event::Eof => {
                    self.eof();
                    return;
                }
                Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => Ok(()),
            };
            if step.is_err() {
                return;
            }
        }
    }

    // ---- positions --------------------------------------------------------

    /// A quick-xml position as a byte offset into the text.
    fn position(&self, pos: u64) -> usize {
        let pos = usize::try_from(pos).unwrap_or(usize::MAX);
        self.floor(pos.saturating_add(self.bom))
    }

    /// `at`, moved back to a character boundary inside the text.
    fn floor(&self, at: usize) -> usize {
        let mut at = at.min(self.text.len());
        while at > 0 && !self.text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    /// Where `sub`, a slice of the input, starts in it (events borrow from it).
    fn offset_of(&self, sub: &str) -> Option<usize> {
        let offset = (sub.as_ptr() as usize).checked_sub(self.text.as_ptr() as usize)?;
        (offset + sub.len() <= self.text.len()).then_some(offset)
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    /// The character at `at` (empty at the end of the text).
    fn point(&self, at: usize) -> Span {
        let at = self.floor(at);
        let len = self
            .text
            .get(at..)
            .and_then(|rest| rest.chars().next())
            .map_or(0, char::len_utf8);
        self.span(at, at + len)
    }

    // ---- errors -------------------------------------------------------------

    fn report(&mut self, diag: Diagnostic) {
        self.diags.push(diag);
    }

    /// Reports a fatal error and returns the stop signal.
    fn fatal(&mut self, diag: Diagnostic) -> Stop {
        self.diags.push(diag);
        Stop
    }

    /// A malformed document, as quick-xml found it.
    fn syntax_error(&mut self, err: &XmlError, at: usize, now: usize) {
        let mut diag = match err {
            XmlError::IllFormed(IllFormedError::UnclosedReference) => {
                Diagnostic::new(Code::XmlSyntax, "`&` must start an entity such as `&amp;`")
                    .help(AMP_HELP)
            }
            _ => Diagnostic::new(Code::XmlSyntax, err.to_string()),
        };
        let on_one_line = now > at && self.text.get(at..now).is_some_and(|s| !s.contains('\n'));
        let span = if on_one_line {
            self.span(at, now)
        } else {
            self.point(at)
        };
        diag = diag.at(span);
        self.report(diag);
    }

    /// An attribute that quick-xml could not split off its tag.
    fn attr_error(&mut self, err: &AttrError, content_offset: usize) -> Stop {
        let (message, pos) = match *err {
            AttrError::ExpectedEq(pos) => (
                "attribute name must be followed by `=` and a quoted value".to_owned(),
                pos,
            ),
            AttrError::ExpectedValue(pos) => {
                ("`=` must be followed by a quoted value".to_owned(), pos)
            }
            AttrError::UnquotedValue(pos) => (
                "attribute value must be in quotes (`\"` or `'`)".to_owned(),
                pos,
            ),
            AttrError::ExpectedQuote(pos, quote) => (
                format!(
                    "attribute value is not closed: `{}` not found",
                    char::from(quote)
                ),
                pos,
            ),
            AttrError::Duplicated(pos, _) => {
                let name: String = self
                    .text
                    .get(content_offset + pos..)
                    .unwrap_or("")
                    .chars()
                    .take_while(|&c| c != '=' && !is_xml_space(c))
                    .collect();
                (format!("attribute `{name}` is given twice"), pos)
            }
        };
        let at = content_offset + pos;
        let diag = Diagnostic::new(Code::XmlSyntax, message).at(self.point(at));
        self.fatal(diag)
    }

    /// An attribute value whose entities do not decode.
    fn escape_error(&mut self, err: &EscapeError, value_offset: usize, value_span: Span) -> Stop {
        let diag = match err {
            EscapeError::UnrecognizedEntity(range, name) => {
                let span = self.span(
                    value_offset + range.start.saturating_sub(1),
                    value_offset + range.end + 1,
                );
                Diagnostic::new(Code::XmlSyntax, format!("unknown entity `&{name};`"))
                    .at(span)
                    .help(
                        "XML has `&lt;`, `&gt;`, `&amp;`, `&apos;`, `&quot;` \
                         and character references such as `&#38;`",
                    )
            }
            EscapeError::UnterminatedEntity(range) => {
                Diagnostic::new(Code::XmlSyntax, "`&` must start an entity such as `&amp;`")
                    .at(self.point(value_offset + range.start))
                    .help(AMP_HELP)
            }
            EscapeError::InvalidCharRef(_) | EscapeError::TooManyNestedEntities => {
                Diagnostic::new(Code::XmlSyntax, err.to_string()).at(value_span)
            }
        };
        self.fatal(diag)
    }

    // ---- events -------------------------------------------------------------

    fn parent(&self) -> Parent {
        match self.open.last().map(|o| &o.frame) {
            None => Parent::Document,
            Some(Frame::Plain) => Parent::Plain,
            Some(Frame::Hooks) => Parent::Hooks,
            Some(Frame::Hook(_)) => Parent::Hook,
            Some(Frame::When(_)) => Parent::When,
            Some(Frame::Action(_)) => Parent::Action,
            Some(Frame::Param(_)) => Parent::Param,
            Some(Frame::Skip) => Parent::Skip,
        }
    }

    fn hook_mut(&mut self) -> Option<&mut HookBuilder> {
        match self.open.last_mut().map(|o| &mut o.frame) {
            Some(Frame::Hook(h)) => Some(h),
            _ => None,
        }
    }

    /// A start tag (`empty`: a `<tag/>`, which also ends it).
    fn start(
        &mut self,
        e: &BytesStart<'_>,
        before: usize,
        after: usize,
        empty: bool,
    ) -> Result<(), Stop> {
        let content: &str = e;
        let content_offset = self.offset_of(content).unwrap_or(before + 1);
        let tag = self.span(content_offset.saturating_sub(1), after);
        let name = e.name().into_inner();
        let name_span = self.span(content_offset, content_offset + name.len());

        if self.open.is_empty() {
            if self.root == Root::Closed {
                let diag = Diagnostic::new(
                    Code::XmlSyntax,
                    format!("second root element `<{name}>`: a document has exactly one"),
                )
                .at(tag)
                .help("wrap the elements in one root element such as `<directive>`");
                return Err(self.fatal(diag));
            }
            self.root = Root::Open;
        }
        if self.open.len() >= MAX_DOC_DEPTH {
            let diag = Diagnostic::new(
                Code::TooDeep,
                format!("XML elements nested more than {MAX_DOC_DEPTH} deep"),
            )
            .at(tag);
            return Err(self.fatal(diag));
        }

        let attrs = self.attributes(e, content_offset, tag)?;
        let frame = match self.parent() {
            Parent::Document | Parent::Plain => Self::plain(name),
            Parent::Hooks if name == "hook" => self.begin_hook(tag, attrs)?,
            Parent::Hooks => {
                if did_you_mean(name, ["hook"]).is_some() {
                    self.report(
                        Diagnostic::new(
                            Code::UnknownKey,
                            format!("unknown element `<{name}>` in `<hooks>`"),
                        )
                        .at(name_span)
                        .help("did you mean `hook`?"),
                    );
                    Frame::Skip
                } else {
                    Self::plain(name)
                }
            }
            Parent::Hook if name == "when" => self.begin_when(tag, &attrs),
            Parent::Hook => self.begin_action(name, name_span, tag, attrs),
            Parent::Action if name == "param" => self.begin_param(tag, attrs),
            Parent::When | Parent::Action | Parent::Param => {
                let within = self.open.last().map_or("", |o| o.name.as_str());
                let mut diag = Diagnostic::new(
                    Code::UnknownKey,
                    format!("unexpected element `<{name}>` in `<{within}>`"),
                )
                .at(name_span);
                if matches!(self.parent(), Parent::Action) {
                    diag = diag.help(PARAM_HELP);
                }
                self.report(diag);
                Frame::Skip
            }
            Parent::Skip => Frame::Skip,
        };
        self.open.push(Open {
            name: name.to_owned(),
            tag,
            frame,
        });
        if empty {
            self.end(after);
        }
        Ok(())
    }

    fn plain(name: &str) -> Frame {
        if name == "hooks" {
            Frame::Hooks
        } else {
            Frame::Plain
        }
    }

    /// The attributes of a start tag, checked for well-formedness and decoded.
    fn attributes(
        &mut self,
        e: &BytesStart<'_>,
        content_offset: usize,
        tag: Span,
    ) -> Result<Vec<Attr>, Stop> {
        let mut out = Vec::new();
        for attr in e.attributes() {
            let attr = match attr {
                Ok(attr) => attr,
                Err(err) => return Err(self.attr_error(&err, content_offset)),
            };
            let key = attr.key.into_inner();
            let name_span = match self.offset_of(key) {
                Some(o) => self.span(o, o + key.len()),
                None => tag,
            };
            let raw: &str = &attr.value;
            let raw_offset = self.offset_of(raw);
            let value_span = match raw_offset {
                Some(o) => self.span(o, o + raw.len()),
                None => tag,
            };
            let value =
                match attr.normalized_value_with(XmlVersion::Implicit1_0, 1, resolve_xml_entity) {
                    Ok(v) => v.into_owned(),
                    Err(XmlError::Escape(err)) => {
                        return Err(self.escape_error(
                            &err,
                            raw_offset.unwrap_or(value_span.start as usize),
                            value_span,
                        ))
                    }
                    Err(err) => {
                        let diag = Diagnostic::new(Code::XmlSyntax, err.to_string()).at(value_span);
                        return Err(self.fatal(diag));
                    }
                };
            // Decoding an entity or folding `\r\n` shortens the value; folding a
            // lone line break or tab into a space keeps every byte in place.
            let exact = raw_offset.is_some() && value.len() == raw.len();
            out.push(Attr {
                name: key.to_owned(),
                name_span,
                value,
                value_span,
                exact,
            });
        }
        Ok(out)
    }

    /// The span of `value[start..end]` of an attribute: exact, or the whole value.
    fn value_part(&self, attr: &Attr, start: usize, end: usize) -> Span {
        if attr.exact {
            let base = attr.value_span.start as usize;
            self.span(base + start, base + end)
        } else {
            attr.value_span
        }
    }

    /// Text, CDATA or a decoded entity (`verbatim` at `offset` unless decoded).
    fn text_piece(
        &mut self,
        raw: &str,
        decoded: &str,
        offset: Option<usize>,
        before: usize,
        after: usize,
        markup: bool,
    ) -> Result<(), Stop> {
        let blank = trim_xml(decoded).is_empty();
        let piece_span = match offset {
            Some(o) => {
                let lead = raw.len() - raw.trim_start_matches(is_xml_space).len();
                self.span(o + lead, o + lead + trim_xml(raw).len())
            }
            None => self.span(before, after),
        };
        match self.open.last_mut().map(|o| &mut o.frame) {
            None => {
                if blank && !markup {
                    return Ok(());
                }
                let place = if self.root == Root::NotYet {
                    "before"
                } else {
                    "after"
                };
                let diag =
                    Diagnostic::new(Code::XmlSyntax, format!("text {place} the root element"))
                        .at(piece_span)
                        .help("a document is one root element; put text inside it or in a comment");
                Err(self.fatal(diag))
            }
            Some(Frame::Hook(h)) => {
                if !blank && !h.text_reported {
                    h.text_reported = true;
                    self.report(
                        Diagnostic::new(Code::HookAction, "unexpected text in `<hook>`")
                            .at(piece_span)
                            .help(
                                "a hook holds an optional `<when>` condition and one action \
                                 element",
                            ),
                    );
                }
                Ok(())
            }
            Some(Frame::When(w)) => {
                w.text.push(decoded, offset);
                Ok(())
            }
            Some(Frame::Action(a)) => {
                a.text.push(decoded, offset);
                Ok(())
            }
            Some(Frame::Param(p)) => {
                p.text.push(decoded, offset);
                Ok(())
            }
            Some(Frame::Plain | Frame::Hooks | Frame::Skip) => Ok(()),
        }
    }

    /// `&name;` or `&#n;` in text.
    fn general_ref(&mut self, r: &BytesRef<'_>, before: usize, after: usize) -> Result<(), Stop> {
        let name: &str = r;
        let span = self.span(before, after);
        let decoded: Cow<'static, str> = match r.resolve_char_ref() {
            Ok(Some(c)) => Cow::Owned(c.to_string()),
            Ok(None) => match resolve_xml_entity(name) {
                Some(s) => Cow::Borrowed(s),
                None => {
                    let diag =
                        Diagnostic::new(Code::XmlSyntax, format!("unknown entity `&{name};`"))
                            .at(span)
                            .help(
                                "XML has `&lt;`, `&gt;`, `&amp;`, `&apos;`, `&quot;` \
                             and character references such as `&#38;`",
                            );
                    return Err(self.fatal(diag));
                }
            },
            Err(err) => {
                let diag = Diagnostic::new(
                    Code::XmlSyntax,
                    format!("invalid character reference `&{name};`: {err}"),
                )
                .at(span);
                return Err(self.fatal(diag));
            }
        };
        let raw = self.text.get(before..after).unwrap_or("");
        self.text_piece(raw, &decoded, None, before, after, true)
    }

    /// An end tag, or the end of a `<tag/>`.
    fn end(&mut self, after: usize) {
        let Some(open) = self.open.pop() else {
            return;
        };
        let whole = self.span(open.tag.start as usize, after);
        match open.frame {
            Frame::Hook(h) => self.finish_hook(*h, whole),
            Frame::When(w) => self.finish_when(w, open.tag, whole),
            Frame::Action(a) => self.finish_action(*a, whole),
            Frame::Param(p) => self.finish_param(p, whole),
            Frame::Plain | Frame::Hooks | Frame::Skip => {}
        }
        if self.open.is_empty() {
            self.root = Root::Closed;
        }
    }

    fn eof(&mut self) {
        if let Some(open) = self.open.last() {
            let message =
                XmlError::IllFormed(IllFormedError::MissingEndTag(open.name.clone())).to_string();
            let diag = Diagnostic::new(Code::XmlSyntax, message)
                .at(open.tag)
                .label("opened here");
            self.report(diag);
        } else if self.root == Root::NotYet {
            let end = self.text.len();
            let diag = Diagnostic::new(Code::XmlSyntax, "the document has no root element")
                .at(self.span(end, end))
                .help("directive XML is one element, such as `<directive name=\"...\">`");
            self.report(diag);
        }
    }

    // ---- hooks --------------------------------------------------------------

    fn begin_hook(&mut self, tag: Span, attrs: Vec<Attr>) -> Result<Frame, Stop> {
        if self.next_index >= MAX_HOOKS {
            let diag = Diagnostic::new(
                Code::TooLarge,
                format!("more than {MAX_HOOKS} hooks in one file"),
            )
            .at(tag);
            return Err(self.fatal(diag));
        }
        let mut hook = HookBuilder {
            index: self.next_index,
            tag,
            id: None,
            event_given: false,
            events: Vec::new(),
            priority: None,
            enabled: true,
            description: None,
            when_from_attribute: None,
            condition: None,
            action_seen: false,
            action: None,
            text_reported: false,
        };
        self.next_index += 1;
        for attr in attrs {
            match attr.name.as_str() {
                "event" => {
                    hook.event_given = true;
                    hook.events = self.events(&attr);
                }
                "when" => {
                    hook.when_from_attribute = Some(true);
                    hook.condition = self.when_attribute(&attr);
                }
                "id" => {
                    if trim_xml(&attr.value).is_empty() {
                        self.report(
                            Diagnostic::new(Code::WrongShape, "`id` is empty")
                                .at(attr.value_span)
                                .help("give the hook a name, or remove `id` for a default one"),
                        );
                    } else {
                        hook.id = Some(Spanned::new(attr.value, attr.value_span));
                    }
                }
                "priority" => hook.priority = self.priority(&attr),
                "enabled" => match trim_xml(&attr.value) {
                    "true" => hook.enabled = true,
                    "false" => hook.enabled = false,
                    other => self.report(
                        Diagnostic::new(
                            Code::WrongShape,
                            format!("`enabled` must be `true` or `false`, found `{other}`"),
                        )
                        .at(attr.value_span),
                    ),
                },
                "description" => hook.description = Some(attr.value),
                other => self.report(
                    Diagnostic::new(
                        Code::UnknownKey,
                        format!("unknown attribute `{other}` on `<hook>`"),
                    )
                    .at(attr.name_span)
                    .maybe_help(help_for(other, HOOK_ATTRS.iter().copied())),
                ),
            }
        }
        Ok(Frame::Hook(Box::new(hook)))
    }

    /// `event="a, b"`: the trimmed, non-empty names.
    fn events(&mut self, attr: &Attr) -> Vec<Spanned<String>> {
        let mut events = Vec::new();
        if trim_xml(&attr.value).is_empty() {
            self.report(
                Diagnostic::new(Code::NoEvent, "hook listens to no event: `event` is empty")
                    .at(attr.value_span)
                    .help(
                        "name an event such as `error`, several as `error,limit`, or `*` for \
                         every event",
                    ),
            );
            return events;
        }
        let mut start = 0;
        for piece in attr.value.split(',') {
            let lead = piece.len() - piece.trim_start_matches(is_xml_space).len();
            let name = trim_xml(piece);
            let span = self.value_part(attr, start + lead, start + lead + name.len());
            if name.is_empty() {
                self.report(
                    Diagnostic::new(
                        Code::NoEvent,
                        format!("empty event name in `{}`", attr.value),
                    )
                    .at(span)
                    .help("separate event names with single commas"),
                );
            } else {
                events.push(Spanned::new(name.to_owned(), span));
            }
            start += piece.len() + 1;
        }
        events
    }

    /// `when="expr"`.
    fn when_attribute(&mut self, attr: &Attr) -> Option<RawCondition> {
        let text = trim_xml(&attr.value);
        if text.is_empty() {
            self.report(
                Diagnostic::new(Code::WrongShape, "`when` is empty")
                    .at(attr.value_span)
                    .help("write a condition, or remove `when` to match every event"),
            );
            return None;
        }
        let lead = attr.value.len() - attr.value.trim_start_matches(is_xml_space).len();
        let origin = if attr.exact {
            let base = attr.value_span.start as usize + lead;
            Origin::Exact {
                file: self.file,
                base: u32::try_from(base).unwrap_or(u32::MAX),
            }
        } else {
            Origin::Whole(attr.value_span)
        };
        Some(RawCondition::When {
            text: text.to_owned(),
            origin,
            span: attr.value_span,
        })
    }

    /// `priority="10"`.
    fn priority(&mut self, attr: &Attr) -> Option<Spanned<i64>> {
        let text = trim_xml(&attr.value);
        match text.parse::<i64>() {
            Ok(p) => Some(Spanned::new(p, attr.value_span)),
            Err(err) => {
                let diag = match err.kind() {
                    std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                        Diagnostic::new(
                            Code::BadLiteral,
                            format!("`priority` `{text}` is out of the 64-bit integer range"),
                        )
                    }
                    _ => Diagnostic::new(
                        Code::WrongShape,
                        format!("`priority` must be an integer, found `{text}`"),
                    )
                    .help("higher priorities run first; the default is 0"),
                };
                self.report(diag.at(attr.value_span));
                None
            }
        }
    }

    fn finish_hook(&mut self, hook: HookBuilder, whole: Span) {
        if !hook.event_given {
            self.report(
                Diagnostic::new(Code::MissingKey, "`<hook>` has no `event` attribute")
                    .at(hook.tag)
                    .help(
                        "name the event it listens to: `event=\"error\"`, several as \
                         `event=\"error,limit\"`, every event as `event=\"*\"`",
                    ),
            );
        }
        if !hook.action_seen {
            self.report(
                Diagnostic::new(Code::HookAction, "hook has no action element")
                    .at(hook.tag)
                    .help(ACTION_HELP),
            );
        }
        let Some(action) = hook.action else {
            return;
        };
        if hook.events.is_empty() {
            return;
        }
        self.hooks.push(SourceHook {
            layer: Layer::Directive,
            index: hook.index,
            node_path: None,
            span: whole,
            id: hook.id,
            events: hook.events,
            priority: hook.priority,
            enabled: hook.enabled,
            description: hook.description,
            condition: hook.condition,
            action,
        });
    }

    // ---- <when> -------------------------------------------------------------

    fn begin_when(&mut self, tag: Span, attrs: &[Attr]) -> Frame {
        for attr in attrs {
            self.report(
                Diagnostic::new(
                    Code::UnknownKey,
                    format!("unknown attribute `{}` on `<when>`", attr.name),
                )
                .at(attr.name_span)
                .help("`<when>` takes no attributes: its text is the condition"),
            );
        }
        let previous = self.hook_mut().and_then(|h| {
            let previous = h.when_from_attribute;
            h.when_from_attribute.get_or_insert(false);
            previous
        });
        let discard = previous.is_some();
        if let Some(from_attribute) = previous {
            let message = if from_attribute {
                "hook has both a `when` attribute and a `<when>` element"
            } else {
                "hook has two `<when>` elements"
            };
            self.report(
                Diagnostic::new(Code::ConditionAndWhen, message)
                    .at(tag)
                    .label("second condition")
                    .help("keep one condition; join conditions with `&&` (or `and`)"),
            );
        }
        Frame::When(WhenBuilder {
            discard,
            text: TextBuf::default(),
        })
    }

    fn finish_when(&mut self, when: WhenBuilder, tag: Span, whole: Span) {
        if when.discard {
            return;
        }
        let Some(text) = when.text.finish(whole) else {
            self.report(
                Diagnostic::new(Code::WrongShape, "`<when>` is empty")
                    .at(tag)
                    .help(
                        "write the condition as its text, or remove `<when>` to match every event",
                    ),
            );
            return;
        };
        if let Some(hook) = self.hook_mut() {
            hook.condition = Some(RawCondition::When {
                text: text.text,
                origin: text.origin,
                span: text.span,
            });
        }
    }

    // ---- actions ------------------------------------------------------------

    fn begin_action(&mut self, name: &str, name_span: Span, tag: Span, attrs: Vec<Attr>) -> Frame {
        let seen = self
            .hook_mut()
            .is_some_and(|h| std::mem::replace(&mut h.action_seen, true));
        if seen {
            self.report(
                Diagnostic::new(Code::HookAction, "hook has more than one action element")
                    .at(tag)
                    .label("second action")
                    .help("a hook runs one action; split it into several hooks"),
            );
        }
        let params = attrs
            .into_iter()
            .map(|a| {
                let key = Spanned::new(a.name, a.name_span);
                let value = Node {
                    kind: NodeKind::Text(a.value),
                    span: a.value_span,
                };
                (key, value)
            })
            .collect();
        Frame::Action(Box::new(ActionBuilder {
            name: Spanned::new(name.to_owned(), name_span),
            tag,
            discard: seen,
            params,
            xml_params: Vec::new(),
            text: TextBuf::default(),
        }))
    }

    fn finish_action(&mut self, action: ActionBuilder, whole: Span) {
        let ActionBuilder {
            name,
            tag,
            discard,
            mut params,
            xml_params,
            text,
        } = action;
        let text = text.finish(whole);
        let mut kind = name.clone();
        let mut complete = true;
        if name.value == "directive" {
            // The seed's shorthand: `<directive>X</directive>`.
            kind.value = "call_directive".to_owned();
            let attribute = params.iter().any(|(k, _)| k.value == "directive");
            match text {
                Some(t) if attribute => self.report(
                    Diagnostic::new(
                        Code::DuplicateKey,
                        "the directive is named twice: as text and as the `directive` attribute",
                    )
                    .at(t.span)
                    .help("keep one of them"),
                ),
                Some(t) => {
                    let key = Spanned::new("directive".to_owned(), t.span);
                    let value = Node {
                        kind: NodeKind::Text(t.text),
                        span: t.span,
                    };
                    params.insert(0, (key, value));
                }
                None if attribute => {}
                None => {
                    complete = false;
                    self.report(
                        Diagnostic::new(Code::MissingKey, "`<directive>` names no directive")
                            .at(tag)
                            .help(
                                "write the directive's name as its text: \
                                 `<directive>my_app/handler</directive>`",
                            ),
                    );
                }
            }
        } else if let Some(t) = text {
            self.report(
                Diagnostic::new(
                    Code::WrongShape,
                    format!("unexpected text in `<{}>`", name.value),
                )
                .at(t.span)
                .help(PARAM_HELP),
            );
        }
        for (i, (key, _)) in xml_params.iter().enumerate() {
            let repeated = xml_params
                .iter()
                .take(i)
                .any(|(earlier, _)| earlier.value == key.value);
            if repeated {
                self.report(
                    Diagnostic::new(
                        Code::DuplicateKey,
                        format!("`<param name=\"{}\">` is given twice", key.value),
                    )
                    .at(key.span),
                );
            }
        }
        if discard || !complete {
            return;
        }
        if let Some(hook) = self.hook_mut() {
            hook.action = Some(RawAction {
                kind,
                params,
                xml_params,
                span: whole,
                node_path: None,
            });
        }
    }

    // ---- <param> ------------------------------------------------------------

    fn begin_param(&mut self, tag: Span, attrs: Vec<Attr>) -> Frame {
        let mut name = None;
        let mut named = false;
        for attr in attrs {
            if attr.name == "name" {
                named = true;
                if trim_xml(&attr.value).is_empty() {
                    self.report(
                        Diagnostic::new(Code::WrongShape, "`<param>` has an empty `name`")
                            .at(attr.value_span),
                    );
                } else {
                    name = Some(Spanned::new(attr.value, attr.value_span));
                }
            } else {
                self.report(
                    Diagnostic::new(
                        Code::UnknownKey,
                        format!("unknown attribute `{}` on `<param>`", attr.name),
                    )
                    .at(attr.name_span)
                    .maybe_help(help_for(&attr.name, ["name"])),
                );
            }
        }
        if !named {
            self.report(
                Diagnostic::new(Code::MissingKey, "`<param>` has no `name` attribute")
                    .at(tag)
                    .help("name the parameter: `<param name=\"key\">value</param>`"),
            );
        }
        Frame::Param(ParamBuilder {
            name,
            text: TextBuf::default(),
        })
    }

    fn finish_param(&mut self, param: ParamBuilder, whole: Span) {
        let Some(name) = param.name else {
            return;
        };
        let value = match param.text.finish(whole) {
            Some(t) => Node {
                kind: NodeKind::Text(t.text),
                span: t.span,
            },
            None => Node {
                kind: NodeKind::Text(String::new()),
                span: whole,
            },
        };
        if let Some(Frame::Action(action)) = self.open.last_mut().map(|o| &mut o.frame) {
            action.xml_params.push((name, value));
        }
    }
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
    use crate::diag::Diagnostic;

    const F: FileId = FileId(0);

    fn parse(src: &str) -> (SourceFile, Vec<Diagnostic>) {
        let mut diags = Diagnostics::new();
        let file = read(src, F, &mut diags);
        (file, diags.into_vec())
    }

    /// Reads a document that must have no diagnostics.
    fn clean(src: &str) -> SourceFile {
        let (file, diags) = parse(src);
        assert!(diags.is_empty(), "unexpected diagnostics: {diags:#?}");
        file
    }

    /// The one diagnostic of a document.
    fn one(src: &str) -> (SourceFile, Diagnostic) {
        let (file, mut diags) = parse(src);
        assert_eq!(diags.len(), 1, "expected one diagnostic: {diags:#?}");
        (file, diags.remove(0))
    }

    /// The span of the `n`th (from 0) occurrence of `needle`.
    fn nth(src: &str, needle: &str, n: usize) -> Span {
        let start = src
            .match_indices(needle)
            .nth(n)
            .unwrap_or_else(|| panic!("`{needle}` #{n} not in the source"))
            .0;
        Span::new(F, start, start + needle.len())
    }

    fn find(src: &str, needle: &str) -> Span {
        nth(src, needle, 0)
    }

    /// The first byte of a span.
    fn first(span: Span) -> Span {
        Span::new(F, span.start as usize, span.start as usize + 1)
    }

    /// A span without its first `n` bytes.
    fn shift(span: Span, n: usize) -> Span {
        Span::new(F, span.start as usize + n, span.end as usize)
    }

    fn text(src: &str, span: Span) -> &str {
        &src[span.range()]
    }

    fn when(hook: &SourceHook) -> (&str, Origin, Span) {
        match &hook.condition {
            Some(RawCondition::When { text, origin, span }) => (text, *origin, *span),
            other => panic!("expected a `when`, got {other:?}"),
        }
    }

    fn exact_at(span: Span) -> Origin {
        Origin::Exact {
            file: F,
            base: span.start,
        }
    }

    fn text_node(node: &Node) -> &str {
        match &node.kind {
            NodeKind::Text(s) => s,
            other => panic!("expected text, got {other:?}"),
        }
    }

    fn events(hook: &SourceHook) -> Vec<&str> {
        hook.events.iter().map(|e| e.value.as_str()).collect()
    }

    /// Wraps hooks in a directive document.
    fn doc(hooks: &str) -> String {
        format!("<directive name=\"d\">\n  <hooks>\n{hooks}\n  </hooks>\n</directive>\n")
    }

    #[test]
    fn reads_the_seed_document() {
        let src = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/seed000/directive.xml"
        ));
        let file = clean(src);
        assert_eq!(file.hooks.len(), 1);
        let hook = &file.hooks[0];
        assert_eq!(hook.layer, Layer::Directive);
        assert_eq!(hook.index, 0);
        assert_eq!(hook.node_path, None);
        assert_eq!(events(hook), ["error"]);
        assert_eq!(hook.events[0].span, nth(src, "error", 0));
        assert!(hook.enabled && hook.id.is_none() && hook.priority.is_none());
        assert!(text(src, hook.span).starts_with("<hook event"));
        assert!(text(src, hook.span).ends_with("</hook>"));

        let expr = "classification.category == 'rate_limited'";
        let (t, origin, span) = when(hook);
        assert_eq!(t, expr);
        assert_eq!(span, find(src, expr));
        assert_eq!(origin, exact_at(find(src, expr)));

        let action = &hook.action;
        assert_eq!(action.kind.value, "call_directive");
        assert_eq!(text(src, action.kind.span), "directive");
        assert_eq!(action.kind.span, nth(src, "directive", 2));
        assert!(text(src, action.span).starts_with("<directive>"));
        assert!(text(src, action.span).ends_with("</directive>"));
        assert_eq!(action.params.len(), 1);
        let (key, value) = &action.params[0];
        assert_eq!(key.value, "directive");
        assert_eq!(text_node(value), "my_app/custom_backoff");
        assert_eq!(value.span, find(src, "my_app/custom_backoff"));
        assert!(action.xml_params.is_empty());
        assert!(file.schema_version.is_none() && file.context_schema.is_none());
    }

    #[test]
    fn reads_the_policy_example() {
        let src = include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/policy.xml"
        ));
        let file = clean(src);
        assert_eq!(file.hooks.len(), 12);
        for hook in &file.hooks {
            assert!(hook.id.is_some() && !hook.events.is_empty());
            // Every condition parses, and parses to its place in the file.
            if let Some(RawCondition::When { text, origin, span }) = &hook.condition {
                assert!(matches!(origin, Origin::Exact { .. }), "{text}");
                let expr = crate::syntax::parse(text, *origin)
                    .unwrap_or_else(|d| panic!("`{text}` does not parse: {d:?}"));
                assert_eq!(expr.span, *span);
            }
        }
        let by_id = |id: &str| {
            file.hooks
                .iter()
                .find(|h| h.id.as_ref().is_some_and(|i| i.value == id))
                .unwrap()
        };
        assert_eq!(events(by_id("orphan_event")), ["*"]);
        assert_eq!(
            events(by_id("progress_checkpoint")),
            ["before_step", "after_step"]
        );
        assert!(!by_id("step_budget_guard").enabled);
        assert_eq!(
            by_id("triage_unclassified").action.kind.value,
            "call_directive"
        );
        assert_eq!(by_id("compaction").action.xml_params.len(), 3);
        let budget = when(by_id("budget_escalation")).0;
        assert_eq!(
            budget,
            "limit_code == 'spend_exceeded' && limit_value >= limit_max * 0.9"
        );
    }

    const SPEC_EXAMPLE: &str = r#"<directive name="my_directive">
  <hooks>
    <hook event="error" when="classification.category == 'rate_limited'">
      <directive>my_app/custom_backoff</directive>          <!-- seed form: call_directive -->
    </hook>
    <hook id="budget" event="limit" priority="10">
      <when><![CDATA[limit_code == 'spend_exceeded' && cost.spend > 10.0]]></when>
      <escalate target="user_approval" timeout_seconds="7200"/>
    </hook>
    <hook event="error" when="classification.category == 'overloaded' and error.code != 'E42'">
      <call_directive directive="my_app/backoff" inherit_token="false">
        <param name="retry_after">${error.headers['retry-after']}</param>
      </call_directive>
    </hook>
  </hooks>
</directive>
"#;

    #[test]
    fn reads_the_spec_example() {
        let src = SPEC_EXAMPLE;
        let file = clean(src);
        assert_eq!(file.hooks.len(), 3);
        let indexes: Vec<usize> = file.hooks.iter().map(|h| h.index).collect();
        assert_eq!(indexes, [0, 1, 2]);

        let first = &file.hooks[0];
        assert_eq!(first.action.kind.value, "call_directive");
        assert_eq!(
            text_node(&first.action.params[0].1),
            "my_app/custom_backoff"
        );

        let budget = &file.hooks[1];
        let id = budget.id.as_ref().unwrap();
        assert_eq!(id.value, "budget");
        assert_eq!(id.span, find(src, "budget"));
        let priority = budget.priority.as_ref().unwrap();
        assert_eq!(priority.value, 10);
        assert_eq!(text(src, priority.span), "10");
        assert_eq!(events(budget), ["limit"]);
        let cdata = "limit_code == 'spend_exceeded' && cost.spend > 10.0";
        let (t, origin, span) = when(budget);
        assert_eq!(t, cdata);
        assert_eq!(origin, exact_at(find(src, cdata)));
        assert_eq!(span, find(src, cdata));
        let escalate = &budget.action;
        assert_eq!(escalate.kind.value, "escalate");
        assert_eq!(escalate.kind.span, find(src, "escalate"));
        let params: Vec<(&str, &str)> = escalate
            .params
            .iter()
            .map(|(k, v)| (k.value.as_str(), text_node(v)))
            .collect();
        assert_eq!(
            params,
            [("target", "user_approval"), ("timeout_seconds", "7200")]
        );
        assert_eq!(escalate.params[0].0.span, find(src, "target"));
        assert_eq!(escalate.params[0].1.span, find(src, "user_approval"));
        assert_eq!(escalate.params[1].1.span, find(src, "7200"));
        assert_eq!(
            text(src, escalate.span),
            r#"<escalate target="user_approval" timeout_seconds="7200"/>"#
        );

        let third = &file.hooks[2];
        let expr = "classification.category == 'overloaded' and error.code != 'E42'";
        assert_eq!(when(third).1, exact_at(find(src, expr)));
        let call = &third.action;
        assert_eq!(call.kind.value, "call_directive");
        assert_eq!(call.kind.span, shift(find(src, "<call_directive"), 1));
        let params: Vec<(&str, &str)> = call
            .params
            .iter()
            .map(|(k, v)| (k.value.as_str(), text_node(v)))
            .collect();
        assert_eq!(
            params,
            [("directive", "my_app/backoff"), ("inherit_token", "false")]
        );
        assert_eq!(call.xml_params.len(), 1);
        let (key, value) = &call.xml_params[0];
        assert_eq!(key.value, "retry_after");
        assert_eq!(key.span, nth(src, "retry_after", 0));
        let template = "${error.headers['retry-after']}";
        assert_eq!(text_node(value), template);
        assert_eq!(value.span, find(src, template));
        assert!(text(src, call.span).ends_with("</call_directive>"));
    }

    #[test]
    fn reads_every_attribute() {
        let src = doc(concat!(
            r#"<hook id="h" event=" error , limit,*" priority="-3" enabled="false" "#,
            r#"description="a &amp; b"><abort/></hook>"#
        ));
        let file = clean(&src);
        let hook = &file.hooks[0];
        assert_eq!(events(hook), ["error", "limit", "*"]);
        assert_eq!(hook.events[0].span, nth(&src, "error", 0));
        assert_eq!(hook.events[1].span, find(&src, "limit"));
        assert_eq!(hook.events[2].span, find(&src, "*"));
        assert_eq!(hook.priority.as_ref().unwrap().value, -3);
        assert!(!hook.enabled);
        assert_eq!(hook.description.as_deref(), Some("a & b"));
        assert!(hook.condition.is_none());
        assert_eq!(hook.action.kind.value, "abort");
        assert!(hook.action.params.is_empty());
    }

    #[test]
    fn decoded_when_maps_to_the_whole_value() {
        let src = doc(r#"<hook event="error" when="a &amp;&amp; b"><abort/></hook>"#);
        let file = clean(&src);
        let (t, origin, span) = when(&file.hooks[0]);
        assert_eq!(t, "a && b");
        assert_eq!(span, find(&src, "a &amp;&amp; b"));
        assert_eq!(origin, Origin::Whole(span));
    }

    #[test]
    fn when_attribute_is_trimmed_and_exact() {
        let src = doc("<hook event=\"error\" when=\"  turn_number >\n 3 \"><abort/></hook>");
        let file = clean(&src);
        let (t, origin, _) = when(&file.hooks[0]);
        // A line break in an attribute folds into a space, in place.
        assert_eq!(t, "turn_number >  3");
        assert_eq!(origin, exact_at(find(&src, "turn_number")));
    }

    #[test]
    fn when_element_with_entities_maps_to_the_element() {
        let src = doc("<hook event=\"error\"><when>cost &gt; 1.5</when><abort/></hook>");
        let file = clean(&src);
        let (t, origin, span) = when(&file.hooks[0]);
        assert_eq!(t, "cost > 1.5");
        assert_eq!(span, find(&src, "<when>cost &gt; 1.5</when>"));
        assert_eq!(origin, Origin::Whole(span));
    }

    #[test]
    fn cdata_when_with_surrounding_whitespace_is_exact() {
        let src = doc(concat!(
            "<hook event=\"limit\">\n  <when>\n    <![CDATA[ tokens_used > 5 && turn_number < 2 ]]>\n",
            "  </when>\n  <abort/>\n</hook>"
        ));
        let file = clean(&src);
        let (t, origin, span) = when(&file.hooks[0]);
        assert_eq!(t, "tokens_used > 5 && turn_number < 2");
        assert_eq!(span, find(&src, t));
        assert_eq!(origin, exact_at(span));
    }

    #[test]
    fn plain_when_text_is_exact() {
        let src = doc("<hook event=\"limit\"><when>\n  has(limit_code)\n</when><abort/></hook>");
        let file = clean(&src);
        let (t, origin, _) = when(&file.hooks[0]);
        assert_eq!(t, "has(limit_code)");
        assert_eq!(origin, exact_at(find(&src, "has(limit_code)")));
    }

    #[test]
    fn ignores_everything_but_hooks() {
        let src = r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE directive>
<!-- a comment -->
<directive name="x" version="1.0.0">
  <metadata><description>not a hook</description><hook event="error"/></metadata>
  <?processing instruction?>
  <hook event="error"><nonsense/></hook>
  <steps><step>do &amp; things</step></steps>
  <hooks>
    <hook event="error"><retry max_attempts="2"/></hook>
    <note>ignored</note>
  </hooks>
  <more><deeper><hooks><hook event="limit"><continue/></hook></hooks></deeper></more>
</directive>
<!-- trailing comment -->
"#;
        let file = clean(src);
        assert_eq!(file.hooks.len(), 2);
        assert_eq!(file.hooks[0].action.kind.value, "retry");
        assert_eq!(file.hooks[1].action.kind.value, "continue");
        assert_eq!(file.hooks[1].index, 1);
    }

    #[test]
    fn param_children_fill_xml_params() {
        let src = doc(concat!(
            r#"<hook event="error"><emit_event event_type="e">"#,
            "\n  <param name=\"kind\">  ${error.type}  </param>",
            "\n  <param name=\"empty\"/>",
            "\n  <!-- comment -->",
            "\n  <param name=\"entity\">a &lt; b</param>",
            "\n</emit_event></hook>"
        ));
        let file = clean(&src);
        let action = &file.hooks[0].action;
        let params: Vec<(&str, &str)> = action
            .xml_params
            .iter()
            .map(|(k, v)| (k.value.as_str(), text_node(v)))
            .collect();
        assert_eq!(
            params,
            [
                ("kind", "${error.type}"),
                ("empty", ""),
                ("entity", "a < b")
            ]
        );
        assert_eq!(action.xml_params[0].1.span, find(&src, "${error.type}"));
        assert_eq!(
            action.xml_params[1].1.span,
            find(&src, "<param name=\"empty\"/>")
        );
        assert_eq!(
            action.xml_params[2].1.span,
            find(&src, "<param name=\"entity\">a &lt; b</param>")
        );
    }

    #[test]
    fn directive_shorthand_keeps_other_attributes() {
        let src =
            doc(r#"<hook event="error"><directive inherit_token="false"> x/y </directive></hook>"#);
        let file = clean(&src);
        let action = &file.hooks[0].action;
        assert_eq!(action.kind.value, "call_directive");
        let names: Vec<&str> = action
            .params
            .iter()
            .map(|(k, _)| k.value.as_str())
            .collect();
        assert_eq!(names, ["directive", "inherit_token"]);
        assert_eq!(action.params[0].1.span, find(&src, "x/y"));
    }

    #[test]
    fn byte_order_mark_keeps_spans_right() {
        let src = format!(
            "\u{feff}{}",
            doc(r#"<hook event="error" priority="x"><abort/></hook>"#)
        );
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::WrongShape);
        assert_eq!(d.span, Some(first(shift(find(&src, "\"x\""), 1))));
    }

    // ---- malformed XML ------------------------------------------------------

    fn syntax(src: &str, at: Span) -> Diagnostic {
        let (file, d) = one(src);
        assert_eq!(d.code, Code::XmlSyntax, "{d:#?}");
        assert_eq!(
            d.span,
            Some(at),
            "{d:#?} at {:?}",
            &src[d.span.unwrap().range()]
        );
        assert!(file.hooks.is_empty());
        d
    }

    #[test]
    fn mismatched_end_tag() {
        let src = "<directive><hooks></directive>";
        let d = syntax(src, find(src, "</directive>"));
        assert!(d.message.contains("expected `</hooks>`"), "{}", d.message);
    }

    #[test]
    fn unmatched_end_tag() {
        let src = "<directive/></hooks>";
        syntax(src, find(src, "</hooks>"));
    }

    #[test]
    fn bad_attribute_syntax() {
        let src = "<directive><hooks><hook event=error/></hooks></directive>";
        syntax(src, first(find(src, "error")));
        let src = "<directive name=\"a\" name=\"b\"/>";
        let d = syntax(src, nth(src, "n", 1));
        assert_eq!(d.message, "attribute `name` is given twice");
        let src = "<directive name/>";
        syntax(src, Span::new(F, 15, 16));
    }

    #[test]
    fn unknown_entities() {
        let src = doc("<hook event=\"error\"><when>a &foo; b</when><abort/></hook>");
        let d = syntax(&src, find(&src, "&foo;"));
        assert_eq!(d.message, "unknown entity `&foo;`");
        let src = "<directive name=\"a&bar;\"/>";
        syntax(src, find(src, "&bar;"));
        let src = "<directive>&#xZZ;</directive>";
        syntax(src, find(src, "&#xZZ;"));
    }

    #[test]
    fn bare_ampersands() {
        let src = doc(r#"<hook event="error" when="a && b"><abort/></hook>"#);
        let d = syntax(&src, find(&src, "&"));
        assert!(d.help.unwrap().contains("&amp;&amp;"));
        let src = doc("<hook event=\"error\"><when>a && b</when><abort/></hook>");
        let d = syntax(&src, find(&src, "&"));
        assert!(d.help.unwrap().contains("CDATA"));
    }

    #[test]
    fn end_of_input_inside_an_element() {
        let src = "<directive>\n  <hooks>\n    <hook event=\"error\">";
        let d = syntax(src, find(src, "<hook event=\"error\">"));
        assert!(d.message.contains("`</hook>` not found"), "{}", d.message);
        let src = "<directive>\n  <hooks";
        syntax(src, find(src, "<hooks"));
    }

    #[test]
    fn one_root_only() {
        let src = "<a/>\n<b/>";
        syntax(src, find(src, "<b/>"));
        let src = "text <a/>";
        syntax(src, find(src, "text"));
        let src = "<a/> text";
        syntax(src, find(src, "text"));
        let src = "  \n<!-- only a comment -->\n";
        syntax(src, Span::new(F, src.len(), src.len()));
        syntax("", Span::new(F, 0, 0));
    }

    #[test]
    fn hooks_before_a_syntax_error_are_kept() {
        let src = doc("<hook event=\"error\"><abort/></hook>\n<hook event=\"limit\">");
        let (file, diags) = parse(&src);
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].code, Code::XmlSyntax);
        assert_eq!(file.hooks.len(), 1);
    }

    // ---- structure errors ---------------------------------------------------

    #[test]
    fn unknown_hook_attribute() {
        let src = doc(r#"<hook evnt="error"><abort/></hook>"#);
        let (file, diags) = parse(&src);
        assert_eq!(diags.len(), 2, "{diags:#?}");
        assert_eq!(diags[0].code, Code::UnknownKey);
        assert_eq!(diags[0].message, "unknown attribute `evnt` on `<hook>`");
        assert_eq!(diags[0].span, Some(find(&src, "evnt")));
        assert_eq!(diags[0].help.as_deref(), Some("did you mean `event`?"));
        assert_eq!(diags[1].code, Code::MissingKey);
        assert_eq!(diags[1].span, Some(find(&src, r#"<hook evnt="error">"#)));
        assert!(file.hooks.is_empty());
    }

    #[test]
    fn missing_and_empty_events() {
        let src = doc(r#"<hook event=" "><abort/></hook>"#);
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::NoEvent);
        assert_eq!(d.span, Some(first(shift(find(&src, "\" \""), 1))));

        let src = doc(r#"<hook event="error,,limit"><abort/></hook>"#);
        let (file, d) = one(&src);
        assert_eq!(d.code, Code::NoEvent);
        assert_eq!(
            d.span,
            Some(Span::new(
                F,
                find(&src, ",,").start as usize + 1,
                find(&src, ",,").start as usize + 1
            ))
        );
        assert_eq!(events(&file.hooks[0]), ["error", "limit"]);
    }

    #[test]
    fn bad_priority_and_enabled() {
        let src = doc(r#"<hook event="error" priority="high"><abort/></hook>"#);
        let (file, d) = one(&src);
        assert_eq!(d.code, Code::WrongShape);
        assert_eq!(d.span, Some(find(&src, "high")));
        assert!(file.hooks[0].priority.is_none());

        let src = doc(r#"<hook event="error" priority="99999999999999999999"><abort/></hook>"#);
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::BadLiteral);
        assert_eq!(d.span, Some(find(&src, "99999999999999999999")));

        let src = doc(r#"<hook event="error" enabled="yes"><abort/></hook>"#);
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::WrongShape);
        assert_eq!(
            d.message,
            "`enabled` must be `true` or `false`, found `yes`"
        );
        assert_eq!(d.span, Some(find(&src, "yes")));

        let src = doc(r#"<hook event="error" id=""><abort/></hook>"#);
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::WrongShape);
    }

    #[test]
    fn condition_twice() {
        let src = doc(r#"<hook event="error" when="true"><when>false</when><abort/></hook>"#);
        let (file, d) = one(&src);
        assert_eq!(d.code, Code::ConditionAndWhen);
        assert_eq!(d.span, Some(find(&src, "<when>")));
        assert_eq!(when(&file.hooks[0]).0, "true");

        let src = doc(r#"<hook event="error"><when>true</when><when>false</when><abort/></hook>"#);
        let (file, d) = one(&src);
        assert_eq!(d.code, Code::ConditionAndWhen);
        assert_eq!(d.span, Some(nth(&src, "<when>", 1)));
        assert_eq!(when(&file.hooks[0]).0, "true");
    }

    #[test]
    fn empty_conditions() {
        let src = doc(r#"<hook event="error" when=" "><abort/></hook>"#);
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::WrongShape);
        let src = doc(r#"<hook event="error"><when/><abort/></hook>"#);
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::WrongShape);
        assert_eq!(d.span, Some(find(&src, "<when/>")));
    }

    #[test]
    fn action_count() {
        let src = doc(r#"<hook event="error"></hook>"#);
        let (file, d) = one(&src);
        assert_eq!(d.code, Code::HookAction);
        assert_eq!(d.message, "hook has no action element");
        assert_eq!(d.span, Some(find(&src, r#"<hook event="error">"#)));
        assert!(d.help.unwrap().contains("<retry/>"));
        assert!(file.hooks.is_empty());

        let src = doc(r#"<hook event="error"/>"#);
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::HookAction);
        assert_eq!(d.span, Some(find(&src, r#"<hook event="error"/>"#)));

        let src = doc(r#"<hook event="error"><retry/> <fail error_message="x"/></hook>"#);
        let (file, d) = one(&src);
        assert_eq!(d.code, Code::HookAction);
        assert_eq!(d.span, Some(find(&src, r#"<fail error_message="x"/>"#)));
        assert_eq!(file.hooks[0].action.kind.value, "retry");
    }

    #[test]
    fn text_in_hook_and_action() {
        let src = doc(r#"<hook event="error">retry please<abort/></hook>"#);
        let (file, d) = one(&src);
        assert_eq!(d.code, Code::HookAction);
        assert_eq!(d.message, "unexpected text in `<hook>`");
        assert_eq!(d.span, Some(find(&src, "retry please")));
        assert_eq!(file.hooks.len(), 1);

        let src = doc(r#"<hook event="error"><retry> 3 </retry></hook>"#);
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::WrongShape);
        assert_eq!(d.span, Some(find(&src, "3")));
    }

    #[test]
    fn directive_shorthand_errors() {
        let src = doc(r#"<hook event="error"><directive>  </directive></hook>"#);
        let (file, d) = one(&src);
        assert_eq!(d.code, Code::MissingKey);
        assert_eq!(d.span, Some(find(&src, "<directive>")));
        assert!(file.hooks.is_empty());

        let src = doc(r#"<hook event="error"><directive directive="a">b</directive></hook>"#);
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::DuplicateKey);
        assert_eq!(d.span, Some(first(shift(find(&src, ">b<"), 1))));
    }

    #[test]
    fn param_errors() {
        let src = doc(
            r#"<hook event="error"><emit_event event_type="e"><param>v</param></emit_event></hook>"#,
        );
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::MissingKey);
        assert_eq!(d.span, Some(find(&src, "<param>")));

        let src = doc(
            r#"<hook event="error"><emit_event event_type="e"><param name="a" nme="b"/></emit_event></hook>"#,
        );
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::UnknownKey);
        assert_eq!(d.span, Some(find(&src, "nme")));

        let src = doc(
            r#"<hook event="error"><emit_event event_type="e"><payload a="1"/></emit_event></hook>"#,
        );
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::UnknownKey);
        assert_eq!(d.span, Some(find(&src, "payload")));

        let src = doc(
            r#"<hook event="error"><emit_event><param name="a"/><param name="a"/></emit_event></hook>"#,
        );
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::DuplicateKey);
        assert_eq!(d.span, Some(first(shift(nth(&src, "\"a\"", 1), 1))));

        let src = doc(r#"<hook event="error"><abort/><when x="1">true</when></hook>"#);
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::UnknownKey);
        assert_eq!(d.span, Some(first(find(&src, "x="))));
    }

    #[test]
    fn misspelt_hook_element() {
        let src = doc(r#"<Hook event="error"><abort/></Hook>"#);
        let (file, d) = one(&src);
        assert_eq!(d.code, Code::UnknownKey);
        assert_eq!(d.span, Some(find(&src, "Hook")));
        assert_eq!(d.help.as_deref(), Some("did you mean `hook`?"));
        assert!(file.hooks.is_empty());
    }

    #[test]
    fn broken_hooks_use_up_their_index() {
        let src = doc(concat!(
            r#"<hook event="error"/>"#,
            r#"<hook event="error"><abort/></hook>"#
        ));
        let (file, diags) = parse(&src);
        assert_eq!(diags.len(), 1);
        assert_eq!(file.hooks[0].index, 1);
    }

    // ---- limits -------------------------------------------------------------

    #[test]
    fn deep_nesting_is_an_error() {
        let depth = 100_000;
        let src = format!("{}{}", "<a>".repeat(depth), "</a>".repeat(depth));
        let (file, d) = one(&src);
        assert_eq!(d.code, Code::TooDeep);
        assert_eq!(
            d.span,
            Some(Span::new(F, 3 * MAX_DOC_DEPTH, 3 * MAX_DOC_DEPTH + 3))
        );
        assert!(file.hooks.is_empty());

        // Just inside the limit is fine.
        let src = format!(
            "{}{}",
            "<a>".repeat(MAX_DOC_DEPTH),
            "</a>".repeat(MAX_DOC_DEPTH)
        );
        clean(&src);
    }

    #[test]
    fn huge_input_is_an_error() {
        let src = " ".repeat(MAX_INPUT_BYTES + 1);
        let (_, d) = one(&src);
        assert_eq!(d.code, Code::TooLarge);
    }
}
