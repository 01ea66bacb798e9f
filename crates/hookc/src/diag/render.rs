//! Rendering diagnostics: for people (a source snippet with a caret, by
//! `codespan-reporting`) and for tools (one JSON object per line).
//!
//! A snippet shows at most [`MAX_LINE_CHARS`] characters of a line: on a
//! longer line (a policy generated as one line of JSON) it shows a window
//! around the span with `...` where the line goes on, as rustc does, so
//! what one diagnostic prints does not grow with the line.

use super::{Code, Diagnostic, Severity};
use crate::span::{SourceMap, Span};
use codespan_reporting::diagnostic::{self as cs, Label};
use codespan_reporting::files::{self as cs_files, Files, SimpleFiles};
use codespan_reporting::term::{self, Config};
use std::ops::Range;

/// The widest line a snippet shows whole, in characters; a longer line is
/// shown as a window of this many characters around the span.
pub const MAX_LINE_CHARS: usize = 120;

/// How many characters before the span a window shows.
const CONTEXT_BEFORE: usize = 40;

/// Marks where a windowed line goes on.
const ELLIPSIS: &str = "...";

/// Renders diagnostics as people read them, without colour. Diagnostics
/// whose file is not in `sources` are rendered without a snippet.
pub fn human(diags: &[&Diagnostic], sources: &SourceMap) -> String {
    let mut files: SimpleFiles<&str, &str> = SimpleFiles::new();
    for (_, f) in sources.files() {
        files.add(f.name(), f.text());
    }
    let config = Config::default();
    let mut out = String::new();
    for d in diags {
        let span = d.span.filter(|s| sources.get(s.file).is_some());
        let emitted = match span.and_then(|s| LineWindow::around(sources, s)) {
            Some((window, range)) => {
                let rendered = to_codespan(d, Some(((), range)));
                term::emit_to_string(&mut out, &config, &window, &rendered)
            }
            None => {
                let rendered = to_codespan(d, span.map(|s| (s.file.0 as usize, s.range())));
                term::emit_to_string(&mut out, &config, &files, &rendered)
            }
        };
        if emitted.is_err() {
            // A span outside its file would be a bug upstream; still say what is wrong.
            out.push_str(&format!(
                "{}[{}]: {}\n",
                d.severity().as_str(),
                d.code,
                d.message
            ));
        }
    }
    out
}

/// The line after the diagnostics that counts them by code, one line per
/// severity (`warning summary: 3 × W0001, 2 × W0007`), each ending in a
/// newline; empty for no diagnostics. It counts what it is given: the
/// diagnostics that were printed.
pub fn code_summary(diags: &[&Diagnostic]) -> String {
    let mut counts = std::collections::BTreeMap::<Code, usize>::new();
    for d in diags {
        *counts.entry(d.code).or_default() += 1;
    }
    let mut out = String::new();
    for severity in [Severity::Error, Severity::Warning] {
        let of_severity: Vec<String> = counts
            .iter()
            .filter(|(code, _)| code.severity() == severity)
            .map(|(code, n)| format!("{n} × {code}"))
            .collect();
        if !of_severity.is_empty() {
            out.push_str(&format!(
                "{} summary: {}\n",
                severity.as_str(),
                of_severity.join(", ")
            ));
        }
    }
    out
}

/// Converts to codespan's form: the label at `at` (a file and a byte range
/// in it), then the node path, help and notes as `=` lines.
fn to_codespan<F>(d: &Diagnostic, at: Option<(F, Range<usize>)>) -> cs::Diagnostic<F> {
    let base = match d.severity() {
        Severity::Error => cs::Diagnostic::error(),
        Severity::Warning => cs::Diagnostic::warning(),
    };
    let mut out = base
        .with_code(d.code.as_str())
        .with_message(d.message.clone());
    if let Some((file, range)) = at {
        let label = Label::primary(file, range);
        let label = match &d.label {
            Some(text) => label.with_message(text.clone()),
            None => label,
        };
        out = out.with_labels(vec![label]);
    }
    let mut notes = Vec::new();
    if let Some(p) = &d.node_path {
        notes.push(format!("at `{p}`"));
    }
    if let Some(h) = &d.help {
        notes.push(format!("help: {h}"));
    }
    notes.extend(d.notes.iter().map(|n| format!("note: {n}")));
    out.with_notes(notes)
}

/// The part of one long source line a snippet shows: at most
/// [`MAX_LINE_CHARS`] characters around a span, with [`ELLIPSIS`] where the
/// line goes on. As a codespan file it has one line, numbered and with
/// columns as in the real file, so the `file:line:col` header is true.
struct LineWindow<'s> {
    /// The file's name.
    name: &'s str,
    /// The line's number in the file, from 1.
    line_number: usize,
    /// The column, in the file, of the first character shown, from 1.
    first_column: usize,
    /// The bytes of `text` before the first character shown (an ellipsis or nothing).
    lead: usize,
    /// What is shown.
    text: String,
}

impl<'s> LineWindow<'s> {
    /// The window around `span`'s start and the span's range in it (cut at
    /// the window's end); `None` when the line is short enough to show
    /// whole, or the span is not on character boundaries (then the snippet
    /// is codespan's own).
    fn around(sources: &'s SourceMap, span: Span) -> Option<(LineWindow<'s>, Range<usize>)> {
        let file = sources.get(span.file)?;
        let text = file.text();
        let start = span.start as usize;
        let before = text.get(..start)?;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let after = text.get(start..)?;
        let line_end = start + after.find('\n').unwrap_or(after.len());
        let line = text.get(line_start..line_end)?;
        // A byte count at most the limit is a character count at most the limit.
        if line.len() <= MAX_LINE_CHARS || line.chars().count() <= MAX_LINE_CHARS {
            return None;
        }
        let end = (span.end as usize).clamp(start, line_end);
        let end = if text.is_char_boundary(end) {
            end
        } else {
            start
        };
        let shown_from = text
            .get(line_start..start)?
            .char_indices()
            .rev()
            .take(CONTEXT_BEFORE)
            .last()
            .map_or(start, |(i, _)| line_start + i);
        let shown_to = text
            .get(shown_from..line_end)?
            .char_indices()
            .nth(MAX_LINE_CHARS)
            .map_or(line_end, |(i, _)| shown_from + i);
        let lead = if shown_from > line_start {
            ELLIPSIS.len()
        } else {
            0
        };
        let mut shown = String::with_capacity(MAX_LINE_CHARS * 4 + 2 * ELLIPSIS.len());
        if lead > 0 {
            shown.push_str(ELLIPSIS);
        }
        shown.push_str(text.get(shown_from..shown_to)?);
        if shown_to < line_end {
            shown.push_str(ELLIPSIS);
        }
        let location = sources.line_col(span.file, span.start)?;
        let first_column = location.column - text.get(shown_from..start)?.chars().count();
        let range = lead + (start - shown_from)..lead + (end.min(shown_to) - shown_from);
        let window = LineWindow {
            name: file.name(),
            line_number: location.line,
            first_column,
            lead,
            text: shown,
        };
        Some((window, range))
    }
}

impl<'a> Files<'a> for LineWindow<'_> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, cs_files::Error> {
        Ok(self.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, cs_files::Error> {
        Ok(&self.text)
    }

    fn line_index(&'a self, (): (), _byte_index: usize) -> Result<usize, cs_files::Error> {
        Ok(0)
    }

    fn line_number(&'a self, (): (), _line_index: usize) -> Result<usize, cs_files::Error> {
        Ok(self.line_number)
    }

    fn column_number(
        &'a self,
        (): (),
        _line_index: usize,
        byte_index: usize,
    ) -> Result<usize, cs_files::Error> {
        let shown = self
            .text
            .get(self.lead..byte_index.max(self.lead))
            .map_or(0, |s| s.chars().count());
        Ok(self.first_column + shown)
    }

    fn line_range(&'a self, (): (), line_index: usize) -> Result<Range<usize>, cs_files::Error> {
        if line_index == 0 {
            Ok(0..self.text.len())
        } else {
            Err(cs_files::Error::LineTooLarge {
                given: line_index,
                max: 0,
            })
        }
    }
}

/// One JSON object per diagnostic, with the location resolved to
/// file/line/column (1-based, columns in characters).
pub fn json(d: &Diagnostic, sources: &SourceMap) -> serde_json::Value {
    let mut obj = serde_json::Map::new();
    obj.insert("code".into(), d.code.as_str().into());
    obj.insert("severity".into(), d.severity().as_str().into());
    obj.insert("message".into(), d.message.clone().into());
    if let Some(span) = d.span {
        obj.insert("file".into(), sources.name(span.file).into());
        if let (Some(start), Some(end)) = (
            sources.line_col(span.file, span.start),
            sources.line_col(span.file, span.end),
        ) {
            obj.insert("line".into(), start.line.into());
            obj.insert("column".into(), start.column.into());
            obj.insert("end_line".into(), end.line.into());
            obj.insert("end_column".into(), end.column.into());
        }
    }
    if let Some(p) = &d.node_path {
        obj.insert("node_path".into(), p.clone().into());
    }
    if let Some(l) = &d.label {
        obj.insert("label".into(), l.clone().into());
    }
    if let Some(h) = &d.help {
        obj.insert("help".into(), h.clone().into());
    }
    if !d.notes.is_empty() {
        obj.insert("notes".into(), d.notes.clone().into());
    }
    serde_json::Value::Object(obj)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_output_has_snippet_caret_path_and_help() {
        let mut sources = SourceMap::new();
        let f = sources.add("p.yaml", "hooks:\n  - op: eqq\n");
        let d = Diagnostic::new(Code::UnknownOperator, "unknown operator `eqq`")
            .at(Span::new(f, 15, 18))
            .label("not an operator")
            .node("hooks[0].condition.op")
            .help("did you mean `eq`?");
        let text = human(&[&d], &sources);
        assert!(
            text.starts_with("error[E0106]: unknown operator `eqq`\n"),
            "{text}"
        );
        assert!(text.contains("p.yaml:2:9"), "{text}");
        assert!(text.contains("^^^ not an operator"), "{text}");
        assert!(text.contains("= at `hooks[0].condition.op`"), "{text}");
        assert!(text.contains("= help: did you mean `eq`?"), "{text}");
    }

    #[test]
    fn json_output_resolves_lines_and_columns() {
        let mut sources = SourceMap::new();
        let f = sources.add("p.yaml", "a\nbcd\n");
        let d = Diagnostic::new(Code::PathNotInSchema, "m").at(Span::new(f, 3, 5));
        let v = json(&d, &sources);
        assert_eq!(v["line"], 2);
        assert_eq!(v["column"], 2);
        assert_eq!(v["end_column"], 4);
        assert_eq!(v["severity"], "warning");
        assert_eq!(v["file"], "p.yaml");
    }

    /// One line of `n` characters: `a`s, with `needle` at character `at`.
    fn long_line(n: usize, at: usize, needle: &str) -> String {
        let mut line = "a".repeat(at);
        line.push_str(needle);
        line.push_str(&"a".repeat(n - at - needle.len()));
        line
    }

    #[test]
    fn a_long_line_is_shown_as_a_window_around_the_span() {
        let mut sources = SourceMap::new();
        let text = format!("first\n{}\nlast\n", long_line(10_000, 5_000, "NEEDLE"));
        let f = sources.add("p.json", text.as_str());
        let start = text.find("NEEDLE").unwrap();
        let d = Diagnostic::new(Code::PathNotInSchema, "m")
            .at(Span::new(f, start, start + 6))
            .label("here");
        let out = human(&[&d], &sources);
        // The real line and column (characters from 1).
        assert!(out.contains("p.json:2:5001"), "{out}");
        let snippet = out.lines().find(|l| l.contains("NEEDLE")).unwrap();
        let caret = out.lines().find(|l| l.contains("^^^^^^ here")).unwrap();
        // The caret is under the needle.
        assert_eq!(snippet.find("NEEDLE"), caret.find('^'), "{out}");
        assert!(
            snippet.contains(&format!("2 │ ...{}NEEDLE", "a".repeat(40))),
            "{out}"
        );
        assert!(snippet.ends_with("..."), "{out}");
        assert!(out.len() < 600, "{} bytes: {out}", out.len());
    }

    #[test]
    fn a_window_at_the_line_start_has_no_leading_ellipsis_and_cuts_a_long_span() {
        let mut sources = SourceMap::new();
        let text = long_line(1_000, 3, "NEEDLE");
        let f = sources.add("p.json", text.as_str());
        let d = Diagnostic::new(Code::PathNotInSchema, "m").at(Span::new(f, 3, 900));
        let out = human(&[&d], &sources);
        assert!(out.contains("p.json:1:4"), "{out}");
        let snippet = out.lines().find(|l| l.contains("NEEDLE")).unwrap();
        assert!(snippet.contains("1 │ aaaNEEDLE"), "{out}");
        assert_eq!(
            snippet.chars().count(),
            "1 │ ".chars().count() + MAX_LINE_CHARS + 3,
            "{out}"
        );
        let caret = out.lines().find(|l| l.contains('^')).unwrap();
        assert_eq!(caret.matches('^').count(), MAX_LINE_CHARS - 3, "{out}");
    }

    #[test]
    fn a_line_at_the_limit_is_shown_whole() {
        let mut sources = SourceMap::new();
        let text = long_line(MAX_LINE_CHARS, 100, "NEEDLE");
        let f = sources.add("p.json", text.as_str());
        let d = Diagnostic::new(Code::PathNotInSchema, "m").at(Span::new(f, 100, 106));
        let out = human(&[&d], &sources);
        assert!(out.contains(&format!("1 │ {text}\n")), "{out}");
        assert!(!out.contains("..."), "{out}");
    }

    #[test]
    fn columns_in_a_window_count_characters() {
        let mut sources = SourceMap::new();
        // Two-byte characters before the span.
        let text = format!("{}NEEDLE{}", "é".repeat(300), "b".repeat(300));
        let f = sources.add("p.json", text.as_str());
        let start = text.find("NEEDLE").unwrap();
        let d = Diagnostic::new(Code::PathNotInSchema, "m").at(Span::new(f, start, start + 6));
        let out = human(&[&d], &sources);
        assert!(out.contains("p.json:1:301"), "{out}");
        assert!(
            out.contains(&format!("...{}NEEDLE", "é".repeat(40))),
            "{out}"
        );
    }

    #[test]
    fn code_summary_counts_per_severity_in_code_order() {
        let w7 = Diagnostic::new(Code::UnguardedTemplate, "w");
        let w1 = Diagnostic::new(Code::PathNotInSchema, "w");
        let e = Diagnostic::new(Code::TypeMismatch, "e");
        assert_eq!(
            code_summary(&[&w7, &w1, &w1, &e, &w7, &w1]),
            "error summary: 1 × E0301\nwarning summary: 3 × W0001, 2 × W0007\n"
        );
        assert_eq!(code_summary(&[]), "");
    }
}
