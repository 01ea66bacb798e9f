//! Every type name is declared once in the workspace's library and binary
//! sources (`crates/*/src`), so a name in a diagnostic, a doc or a stack
//! trace points at one place: two `Policy` types (the checked IR's and the
//! runtime's) or two `Step`s are how readers and `use` lines get confused.
//! Associated types (`type Value = ...` inside an impl) are not
//! declarations of a new type and are skipped.

use crate::walk;

use std::collections::BTreeMap;
use std::path::Path;

/// The type declared on this line, if any: `struct`, `enum`, `union`,
/// `trait` or a top-level `type` alias, with any visibility.
fn declared(line: &str) -> Option<&str> {
    let indent = line.len() - line.trim_start().len();
    let mut words = line.split_whitespace().peekable();
    if words.peek().is_some_and(|w| w.starts_with("pub")) {
        words.next();
    }
    let keyword = words.next()?;
    let is_type = match keyword {
        "struct" | "enum" | "union" | "trait" => true,
        // Inside an impl or trait, `type X = ...` is an associated type.
        "type" => indent == 0,
        _ => false,
    };
    if !is_type {
        return None;
    }
    let name = words.next()?;
    let end = name
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(name.len());
    let name = &name[..end];
    name.starts_with(|c: char| c.is_ascii_uppercase())
        .then_some(name)
}

#[test]
fn every_type_name_is_declared_once() {
    let crates = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut files = Vec::new();
    for krate in std::fs::read_dir(crates).unwrap() {
        let src = krate.unwrap().path().join("src");
        if src.is_dir() {
            files.extend(walk::files_under(&src, &|name| name.ends_with(".rs")));
        }
    }
    assert!(files.len() > 50, "found only {} source files", files.len());
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            if let Some(name) = declared(line) {
                let at = format!("{}:{}", file.strip_prefix(crates).unwrap().display(), n + 1);
                seen.entry(name.to_owned()).or_default().push(at);
            }
        }
    }
    assert!(seen.contains_key("Policy") && seen.contains_key("Program"));
    let twice: Vec<_> = seen.iter().filter(|(_, at)| at.len() > 1).collect();
    assert!(
        twice.is_empty(),
        "type names declared more than once: {twice:#?}"
    );
}

#[test]
fn declarations_are_recognised() {
    assert_eq!(declared("pub struct Policy {"), Some("Policy"));
    assert_eq!(declared("pub(crate) enum Step<'a> {"), Some("Step"));
    assert_eq!(declared("struct Frame;"), Some("Frame"));
    assert_eq!(
        declared("type Outcome = Result<Value, EvalError>;"),
        Some("Outcome")
    );
    assert_eq!(declared("    type Value = Skip;"), None);
    assert_eq!(declared("    pub trait Visit {"), Some("Visit"));
    assert_eq!(declared("let x = struct_like;"), None);
}
