//! Rendering diagnostics: for people (a source snippet with a caret, by
//! `codespan-reporting`) and for tools (one JSON object per line).

use super::{Diagnostic, Severity};
use crate::span::SourceMap;
use codespan_reporting::diagnostic::{self as cs, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, Config};

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
        let rendered = to_codespan(d, sources);
        if term::emit_to_string(&mut out, &config, &files, &rendered).is_err() {
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

/// Converts to codespan's form: the label at the span, then the node path,
/// help and notes as `=` lines.
fn to_codespan(d: &Diagnostic, sources: &SourceMap) -> cs::Diagnostic<usize> {
    let base = match d.severity() {
        Severity::Error => cs::Diagnostic::error(),
        Severity::Warning => cs::Diagnostic::warning(),
    };
    let mut out = base
        .with_code(d.code.as_str())
        .with_message(d.message.clone());
    if let Some(span) = d.span.filter(|s| sources.get(s.file).is_some()) {
        let label = Label::primary(span.file.0 as usize, span.range());
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
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;
    use crate::diag::Code;
    use crate::span::Span;

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
}
