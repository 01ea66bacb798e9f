//! A hook's pattern table (`docs/src/semantics.md#pattern-tables`), as
//! written: YAML's `table: {on: PATH, rows: [{pattern: RE, FIELD: VALUE,
//! ...}, ...]}`, or XML's `<table on="PATH"><row pattern="RE" .../></table>`,
//! which the XML reader hands over in the same shape. Checked here into an
//! [`HookTable`] and the type of its rows.
//!
//! Each pattern is compiled where it is written (a bad one is reported at
//! its row's `pattern`), and all of them once more as the one matcher the
//! runtime builds. A row's fields are scalars (strings, numbers, bools,
//! `null`); a field some rows lack is `null` in those rows, so every row
//! has every field and `${row.FIELD}` of a field of any row always
//! resolves.

use crate::check::policy::HookTable;
use crate::check::ty::Kinds;
use crate::check::typeck::RegexMemo;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::{Node, NodeKind};
use crate::span::Span;
use hookc_runtime::bytecode::path::PathTable;
use serde_json::{Map, Value};

/// The keys of a `table`.
pub const TABLE_KEYS: &[&str] = &["on", "rows"];

/// The key of a row's pattern; every other key of a row is a field.
pub const PATTERN_KEY: &str = "pattern";

/// A checked table: the IR, each field's kinds (in first-use order), and
/// where its `on` path was written.
#[derive(Debug, Clone)]
pub struct CheckedTable {
    /// The table.
    pub table: HookTable,
    /// Each field and the kinds of its values (`null` included when some
    /// row lacks it).
    pub fields: Vec<(String, Kinds)>,
    /// The `on` path's span.
    pub on_span: Span,
}

/// Checks a hook's `table` node; `None` when it has errors (all reported,
/// with the YAML node path under `at`, e.g. `hooks[0].table`).
pub fn check_table(
    node: &Node,
    source: &str,
    at: Option<&str>,
    paths: &mut PathTable,
    regexes: &mut RegexMemo,
    diags: &mut Diagnostics,
) -> Option<CheckedTable> {
    let errors = diags.error_count();
    let push = |diags: &mut Diagnostics, d: Diagnostic, sub: &str| {
        diags.push(match at {
            Some(at) => d.node(format!("{at}{sub}")),
            None => d,
        });
    };
    let Some(entries) = node.as_map() else {
        let d = Diagnostic::new(Code::WrongShape, "`table` must be a mapping")
            .at(node.span)
            .help("write `table: {on: PATH, rows: [{pattern: RE, message: ...}, ...]}`");
        push(diags, d, "");
        return None;
    };
    let mut on = None;
    let mut rows = None;
    for (key, value) in entries {
        match key.name.as_str() {
            "on" => on = Some(value),
            "rows" => rows = Some(value),
            other => {
                let d = Diagnostic::new(Code::UnknownKey, format!("unknown table key `{other}`"))
                    .at(key.span)
                    .maybe_help(crate::suggest::help_for(other, TABLE_KEYS.iter().copied()));
                push(diags, d, &format!(".{other}"));
            }
        }
    }
    let missing = |diags: &mut Diagnostics, key: &str, help: &str| {
        let d = Diagnostic::new(Code::MissingKey, format!("`table` has no `{key}`"))
            .at(node.span)
            .help(help.to_owned());
        push(diags, d, "");
    };
    let on = match on {
        Some(on) => on_path(on, source, paths, diags, &push),
        None => {
            missing(
                diags,
                "on",
                "name the string the rows' patterns match: `on: tool_input.command`",
            );
            None
        }
    };
    let rows = match rows {
        Some(rows) => check_rows(rows, regexes, diags, &push),
        None => {
            missing(
                diags,
                "rows",
                "list the rows: `rows: [{pattern: 'rm -rf', message: ...}]`",
            );
            None
        }
    };
    let ((on, on_span), (patterns, values, spans)) = (on?, rows?);
    if diags.error_count() != errors {
        return None;
    }
    // The linear rows as the runtime's one matcher (its size limit grows
    // with the number of rows; each pattern compiled alone above; a row
    // that needs backtracking is searched on its own).
    let linear: Vec<&str> = patterns
        .iter()
        .map(String::as_str)
        .filter(|p| matches!(regexes.check(p), Ok(hookc_runtime::verify::Engine::Linear)))
        .collect();
    if let Err(reason) = hookc_runtime::verify::compile_regex_set(linear) {
        let span = spans.first().copied().unwrap_or(node.span);
        let d = Diagnostic::new(
            Code::BadRegex,
            format!("the table's patterns do not compile together: {reason}"),
        )
        .at(span)
        .help("split the table in two hooks, or simplify its patterns");
        push(diags, d, ".rows");
        return None;
    }
    // Every field of every row, in first-use order, with its kinds.
    let mut fields: Vec<(String, Kinds)> = Vec::new();
    for row in &values {
        for (name, value) in row {
            let kind = kind_of(value);
            match fields.iter_mut().find(|(n, _)| n == name) {
                Some((_, kinds)) => *kinds = kinds.or(kind),
                None => fields.push((name.clone(), kind)),
            }
        }
    }
    for (name, kinds) in &mut fields {
        if values.iter().any(|row| !row.contains_key(name.as_str())) {
            *kinds = kinds.or(Kinds::NULL);
        }
    }
    let rows = values
        .into_iter()
        .map(|row| {
            fields
                .iter()
                .map(|(name, _)| (name.clone(), row.get(name).cloned().unwrap_or(Value::Null)))
                .collect()
        })
        .collect();
    Some(CheckedTable {
        table: HookTable { on, patterns, rows },
        fields,
        on_span,
    })
}

/// A diagnostic sink that adds the node path under the table.
type Push<'p> = dyn Fn(&mut Diagnostics, Diagnostic, &str) + 'p;

/// The `on` path, interned, and where it is written.
fn on_path(
    on: &Node,
    source: &str,
    paths: &mut PathTable,
    diags: &mut Diagnostics,
    push: &Push<'_>,
) -> Option<(hookc_runtime::bytecode::path::PathId, Span)> {
    let Some(text) = on.as_str() else {
        let d = Diagnostic::new(Code::WrongShape, "`on` must be a path, as a string")
            .at(on.span)
            .help("e.g. `on: tool_input.command`");
        push(diags, d, ".on");
        return None;
    };
    let origin = crate::frontend::yaml_doc::origin_of(source, on);
    match crate::resolve::path::parse(text, origin) {
        Ok((path, span)) => Some((paths.intern(path), span)),
        Err(d) => {
            push(diags, d, ".on");
            None
        }
    }
}

/// The checked rows: patterns, fields, and each pattern's span.
type Rows = (Vec<String>, Vec<Map<String, Value>>, Vec<Span>);

fn check_rows(
    rows: &Node,
    regexes: &mut RegexMemo,
    diags: &mut Diagnostics,
    push: &Push<'_>,
) -> Option<Rows> {
    let items = match &rows.kind {
        NodeKind::Seq(items) if !items.is_empty() => items,
        NodeKind::Seq(_) => {
            let d = Diagnostic::new(Code::WrongShape, "the table has no rows")
                .at(rows.span)
                .help("give at least one row: `{pattern: RE, message: ...}`, or remove the table");
            push(diags, d, ".rows");
            return None;
        }
        _ => {
            let d = Diagnostic::new(Code::WrongShape, "`rows` must be a list of rows")
                .at(rows.span)
                .help("write `rows: [{pattern: RE, message: ...}, ...]`");
            push(diags, d, ".rows");
            return None;
        }
    };
    if items.len() > hookc_runtime::limits::MAX_HOOKS {
        let d = Diagnostic::new(
            Code::TooLarge,
            format!(
                "{} rows; a table has at most {} rows",
                items.len(),
                hookc_runtime::limits::MAX_HOOKS
            ),
        )
        .at(rows.span);
        push(diags, d, ".rows");
        return None;
    }
    let mut patterns = Vec::with_capacity(items.len());
    let mut values = Vec::with_capacity(items.len());
    let mut spans = Vec::with_capacity(items.len());
    for (i, row) in items.iter().enumerate() {
        let at = format!(".rows[{i}]");
        let Some(entries) = row.as_map() else {
            let d = Diagnostic::new(Code::WrongShape, format!("row {i} must be a mapping"))
                .at(row.span)
                .help("write `{pattern: RE, message: ...}`");
            push(diags, d, &at);
            continue;
        };
        let mut pattern = None;
        let mut fields = Map::new();
        for (key, value) in entries {
            if key.name == PATTERN_KEY {
                pattern = Some(value);
                continue;
            }
            match scalar(value) {
                Some(v) => {
                    fields.insert(key.name.clone(), v);
                }
                None => {
                    let d = Diagnostic::new(
                        Code::WrongShape,
                        format!("field `{}` of row {i} is {}", key.name, value.kind_name()),
                    )
                    .at(value.span)
                    .label("not a scalar")
                    .help("a row's fields are strings, numbers, bools or null");
                    push(diags, d, &format!("{at}.{}", key.name));
                }
            }
        }
        let Some(pattern) = pattern else {
            let d = Diagnostic::new(Code::MissingKey, format!("row {i} has no `pattern`"))
                .at(row.span)
                .help("give the row the regex it matches: `pattern: 'rm -rf'`");
            push(diags, d, &at);
            continue;
        };
        let Some(text) = pattern.as_str() else {
            let d = Diagnostic::new(
                Code::WrongShape,
                format!("the pattern of row {i} must be a string"),
            )
            .at(pattern.span);
            push(diags, d, &format!("{at}.pattern"));
            continue;
        };
        if let Some(part) = regexes.boundary_beside(text) {
            let d = crate::check::unicode_boundary::diagnostic(&part, pattern.span);
            push(diags, d, &format!("{at}.pattern"));
        }
        let reason = match regexes.check(text) {
            Ok(hookc_runtime::verify::Engine::Linear) => None,
            Err(reason) => Some(reason),
            // Searched on its own, before the rows matched together
            // (`hookc_runtime`'s `TableMatcher`): W0017, as in a condition.
            Ok(hookc_runtime::verify::Engine::Backtracking(first)) => {
                let limit = hookc_runtime::limits::MAX_REGEX_BACKTRACK_STEPS;
                let d = Diagnostic::new(
                    Code::BacktrackingRegex,
                    format!(
                        "the pattern of row {i} needs backtracking for {first}: it is searched \
                         on its own, in time not linear in the text but bounded by a step \
                         limit of {} (past it, the hook's evaluation is an error)",
                        crate::diag::thousands(limit as u64)
                    ),
                )
                .at(pattern.span)
                .label("searched by the backtracking engine")
                .help(
                    "keep it if the construct is needed; the other rows are still matched \
                     together in one scan",
                );
                push(diags, d, &format!("{at}.pattern"));
                None
            }
        };
        if let Some(reason) = reason {
            let d = Diagnostic::new(
                Code::BadRegex,
                format!("invalid regular expression in row {i}: {reason}"),
            )
            .at(pattern.span)
            .label("does not compile");
            push(diags, d, &format!("{at}.pattern"));
            continue;
        }
        patterns.push(text.to_owned());
        values.push(fields);
        spans.push(pattern.span);
    }
    Some((patterns, values, spans))
}

/// A row field's value: a scalar as JSON (XML's text as a string).
fn scalar(node: &Node) -> Option<Value> {
    Some(match &node.kind {
        NodeKind::Null => Value::Null,
        NodeKind::Bool(b) => Value::Bool(*b),
        NodeKind::Int(i) => Value::from(*i),
        NodeKind::Float(f) => Value::Number(serde_json::Number::from_f64(*f)?),
        NodeKind::Str(s) | NodeKind::Text(s) => Value::String(s.clone()),
        NodeKind::Seq(_) | NodeKind::Map(_) => return None,
    })
}

/// The kind of a scalar field value.
fn kind_of(v: &Value) -> Kinds {
    match v {
        Value::Null => Kinds::NULL,
        Value::Bool(_) => Kinds::BOOL,
        Value::Number(n) if n.is_f64() => Kinds::DOUBLE,
        Value::Number(_) => Kinds::INT,
        Value::String(_) => Kinds::STRING,
        Value::Array(_) => Kinds::LIST,
        Value::Object(_) => Kinds::OBJECT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::FileId;

    fn table(json: Value) -> (Option<CheckedTable>, Diagnostics) {
        let node = Node::from_json(&json, Span::new(FileId(0), 0, 0));
        let mut diags = Diagnostics::new();
        let mut paths = PathTable::new();
        let t = check_table(
            &node,
            "",
            Some("hooks[0].table"),
            &mut paths,
            &mut RegexMemo::default(),
            &mut diags,
        );
        (t, diags)
    }

    #[test]
    fn fields_missing_from_a_row_are_null_there() {
        let (t, diags) = table(serde_json::json!({
            "on": "cmd",
            "rows": [
                {"pattern": "a", "message": "A", "level": 2},
                {"pattern": "b", "message": "B"}
            ]
        }));
        assert!(!diags.has_errors(), "{diags:?}");
        let t = t.unwrap();
        assert_eq!(t.table.patterns, ["a", "b"]);
        assert_eq!(t.table.rows[1]["level"], Value::Null);
        assert_eq!(
            t.fields,
            [
                ("message".to_owned(), Kinds::STRING),
                ("level".to_owned(), Kinds::INT.or(Kinds::NULL))
            ]
        );
        assert_eq!(t.table.first_row("xbx"), Some(1));
        assert_eq!(t.table.first_row("zzz"), None);
    }

    #[test]
    fn bad_tables_are_reported() {
        let messages = |json: Value| -> Vec<String> {
            let (t, diags) = table(json);
            assert!(t.is_none());
            diags.iter().map(|d| d.message.clone()).collect()
        };
        assert_eq!(
            messages(serde_json::json!({"on": "cmd", "rows": []})),
            ["the table has no rows"]
        );
        assert_eq!(
            messages(serde_json::json!({"rows": [{"pattern": "a"}]})),
            ["`table` has no `on`"]
        );
        let m = messages(serde_json::json!({"on": "cmd", "rows": [{"pattern": "("}]}));
        assert!(
            m[0].starts_with("invalid regular expression in row 0"),
            "{m:?}"
        );
        let m = messages(serde_json::json!({"on": "cmd", "rows": [{"pattern": "a", "x": [1]}]}));
        assert_eq!(m, ["field `x` of row 0 is a list"]);
    }

    #[test]
    fn a_rows_unicode_boundary_beside_non_ascii_is_w0024() {
        let codes = |pattern: &str| -> Vec<Code> {
            let (t, diags) =
                table(serde_json::json!({"on": "cmd", "rows": [{"pattern": pattern}]}));
            assert!(t.is_some(), "{diags:?}");
            diags.iter().map(|d| d.code).collect()
        };
        assert_eq!(codes(r"\bfail\w*\b"), [Code::UnicodeWordBoundary]);
        assert!(codes(r"\bfail\b").is_empty());
        assert!(codes(r"(?-u:\bfail\w*\b)").is_empty());
    }
}
