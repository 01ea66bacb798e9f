//! `<let name="NAME">EXPR</let>`: a local name (`docs/src/semantics.md#local-names`),
//! in `<hooks>` for the policy's names, in `<hook>` for the hook's own,
//! as YAML's `let:` at the top level and in a hook.

use super::{Attr, DocReader, LetBuilder, OpenElement, TextBuf};
use crate::diag::{Code, Diagnostic};
use crate::frontend::RawLocal;
use crate::span::{Span, Spanned};

impl DocReader<'_, '_> {
    /// A `<let>` start tag: its one attribute, `name`.
    pub(super) fn begin_let(&mut self, tag: Span, attrs: Vec<Attr>) -> OpenElement {
        let mut name = None;
        let mut named = false;
        for attr in attrs {
            if attr.name == "name" {
                named = true;
                match crate::frontend::local_name_problem(&attr.value, attr.value_span) {
                    Some(d) => self.report(d),
                    None => name = Some(Spanned::new(attr.value, attr.value_span)),
                }
            } else {
                self.report(
                    Diagnostic::new(
                        Code::UnknownKey,
                        format!("unknown attribute `{}` on `<let>`", attr.name),
                    )
                    .at(attr.name_span)
                    .help("`<let name=\"NAME\">` takes its name; its text is the expression"),
                );
            }
        }
        if !named {
            self.report(
                Diagnostic::new(Code::MissingKey, "`<let>` has no `name`")
                    .at(tag)
                    .help("write `<let name=\"risky\">expression</let>`"),
            );
        }
        OpenElement::Let(LetBuilder {
            name,
            text: TextBuf::default(),
        })
    }

    /// A `<let>` end tag: the name and its expression, for the hook it is
    /// in or, in `<hooks>`, for the policy.
    pub(super) fn finish_let(&mut self, built: LetBuilder, tag: Span, whole: Span) {
        let Some(text) = built.text.finish(whole) else {
            self.report(
                Diagnostic::new(Code::WrongShape, "`<let>` is empty")
                    .at(tag)
                    .help(
                        "write the expression as its text: `<let name=\"risky\">expression</let>`",
                    ),
            );
            return;
        };
        let Some(name) = built.name else { return };
        let local = RawLocal {
            name,
            text: text.text,
            origin: text.origin,
            span: text.span,
        };
        match self.hook_mut() {
            Some(hook) => hook.locals.push(local),
            None => self.declared.locals.push(local),
        }
    }
}
