//! The document layer of the reader: quick-xml's events turned into open
//! elements, byte positions mapped to spans, attributes and text decoded
//! (entities, CDATA), and every well-formedness error reported. What the
//! elements mean is in [`super::hooks`].

use super::{
    is_xml_space, trim_xml, Attr, DocReader, HookBuilder, Open, OpenElement, Parent, Root, Stop,
    AMP_HELP, PARAM_HELP,
};

use std::borrow::Cow;

use quick_xml::errors::{Error as XmlError, IllFormedError};
use quick_xml::escape::{resolve_xml_entity, EscapeError};
use quick_xml::events::attributes::AttrError;
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use crate::diag::{Code, Diagnostic};
use crate::span::Span;
use crate::suggest::did_you_mean;
use hookc_runtime::limits::MAX_DOC_DEPTH;

impl<'t> DocReader<'t, '_> {
    pub(super) fn run(&mut self) {
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

    pub(super) fn report(&mut self, diag: Diagnostic) {
        self.diags.push(diag);
    }

    /// Reports a fatal error and returns the stop signal.
    pub(super) fn fatal(&mut self, diag: Diagnostic) -> Stop {
        self.diags.push(diag);
        Stop
    }

    /// A malformed document, as quick-xml found it.
    fn syntax_error(&mut self, err: &XmlError, at: usize, now: usize) {
        if let XmlError::IllFormed(IllFormedError::MismatchedEndTag { expected, found }) = err {
            if let Some(open) = self.open.last().filter(|o| o.name == *expected) {
                // The mistake is the element left open, not the end tag
                // that shows it: point at the start tag.
                let line = self.text.get(..at).map_or(0, |s| s.matches('\n').count()) + 1;
                let diag = Diagnostic::new(
                    Code::XmlSyntax,
                    format!("`<{expected}>` is not closed: `</{found}>` comes before its `</{expected}>`"),
                )
                .at(open.tag)
                .label("not closed")
                .help(format!(
                    "end it with `</{expected}>` (or write it `<{expected} ... />`) before the `</{found}>` on line {line}"
                ));
                self.report(diag);
                return;
            }
        }
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
            Some(OpenElement::Plain) => Parent::Plain,
            Some(OpenElement::Hooks) => Parent::Hooks,
            Some(OpenElement::Hook(_)) => Parent::Hook,
            Some(OpenElement::When(_)) => Parent::When,
            Some(OpenElement::Let(_)) => Parent::Let,
            Some(OpenElement::Action(_)) => Parent::Action,
            Some(OpenElement::Param(_)) => Parent::Param,
            Some(OpenElement::ActionType(_)) => Parent::ActionType,
            Some(OpenElement::Parameter) => Parent::Parameter,
            Some(OpenElement::Event(_)) => Parent::Event,
            Some(OpenElement::EventContext(_)) => Parent::EventContext,
            Some(OpenElement::Table(_)) => Parent::Table,
            Some(OpenElement::Row) => Parent::Row,
            Some(OpenElement::Skip) => Parent::Skip,
        }
    }

    pub(super) fn hook_mut(&mut self) -> Option<&mut HookBuilder> {
        match self.open.last_mut().map(|o| &mut o.frame) {
            Some(OpenElement::Hook(h)) => Some(h),
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
            Parent::Document | Parent::Plain => self.outside_hook(name, attrs),
            Parent::Hooks if name == "hook" => self.begin_hook(tag, attrs)?,
            Parent::Hooks if name == "action_type" => self.begin_action_type(tag, attrs),
            Parent::Hooks if name == "event" => self.begin_event(tag, attrs),
            Parent::Hooks | Parent::Hook if name == "let" => self.begin_let(tag, attrs),
            Parent::Hooks => {
                if let Some(close) = did_you_mean(name, ["hook", "action_type", "event", "let"]) {
                    self.report(
                        Diagnostic::new(
                            Code::UnknownKey,
                            format!("unknown element `<{name}>` in `<hooks>`"),
                        )
                        .at(name_span)
                        .help(format!("did you mean `{close}`?")),
                    );
                    OpenElement::Skip
                } else {
                    self.outside_hook(name, attrs)
                }
            }
            Parent::Hook if name == "when" => self.begin_when(tag, &attrs),
            Parent::Hook if name == "table" => self.begin_table(tag, attrs),
            Parent::Table if name == "row" => self.begin_row(tag, attrs),
            Parent::Hook => self.begin_action(name, name_span, tag, attrs),
            Parent::Action if name == "param" => self.begin_param(tag, attrs),
            Parent::ActionType if name == "parameter" => self.begin_parameter(tag, attrs),
            Parent::Event if name == "context" => self.begin_event_context(tag, &attrs),
            Parent::When
            | Parent::Let
            | Parent::Action
            | Parent::Param
            | Parent::ActionType
            | Parent::Parameter
            | Parent::Event
            | Parent::EventContext
            | Parent::Table
            | Parent::Row => {
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
                OpenElement::Skip
            }
            Parent::Skip => OpenElement::Skip,
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

    /// An element outside any hook: `<hooks>` (its attributes read), or
    /// any other.
    fn outside_hook(&mut self, name: &str, attrs: Vec<Attr>) -> OpenElement {
        if name == "hooks" {
            self.hooks_attributes(attrs);
            OpenElement::Hooks
        } else {
            OpenElement::Plain
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
    pub(super) fn value_part(&self, attr: &Attr, start: usize, end: usize) -> Span {
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
            Some(OpenElement::Hook(h)) => {
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
            Some(OpenElement::When(w)) => {
                w.text.push(decoded, offset);
                Ok(())
            }
            Some(OpenElement::Let(l)) => {
                l.text.push(decoded, offset);
                Ok(())
            }
            Some(OpenElement::Action(a)) => {
                a.text.push(decoded, offset);
                Ok(())
            }
            Some(OpenElement::Param(p)) => {
                p.text.push(decoded, offset);
                Ok(())
            }
            Some(OpenElement::EventContext(t)) => {
                t.push(decoded, offset);
                Ok(())
            }
            Some(
                OpenElement::Plain
                | OpenElement::Hooks
                | OpenElement::ActionType(_)
                | OpenElement::Parameter
                | OpenElement::Event(_)
                | OpenElement::Table(_)
                | OpenElement::Row
                | OpenElement::Skip,
            ) => Ok(()),
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
            OpenElement::Hook(h) => self.finish_hook(*h, whole),
            OpenElement::When(w) => self.finish_when(w, open.tag, whole),
            OpenElement::Let(l) => self.finish_let(l, open.tag, whole),
            OpenElement::Action(a) => self.finish_action(*a, whole),
            OpenElement::Param(p) => self.finish_param(p, whole),
            OpenElement::ActionType(t) => self.finish_action_type(*t, whole),
            OpenElement::Event(e) => self.finish_event(*e, whole),
            OpenElement::EventContext(t) => self.finish_event_context(t, open.tag, whole),
            OpenElement::Table(t) => self.finish_table(*t, whole),
            OpenElement::Plain
            | OpenElement::Hooks
            | OpenElement::Parameter
            | OpenElement::Row
            | OpenElement::Skip => {}
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
}
