//! The modules of every crate import one another without a loop
//! (ARCHITECTURE.md, "Layers"): the product files of `crates/*/src` are
//! read as text, each `crate::` and child-module path of their code
//! (comments and `#[cfg(test)]` modules left out) is an arrow to the file
//! that defines the module it names, and the strongly connected components
//! of those arrows are the loops: there must be none. A child's `super::`
//! reads the folder it is part of, which counts as one unit with it (a
//! parent that re-exports its children is their facade, not a loop), and a
//! macro's `$crate::` names the crate's exports, not a file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One crate's product files by module path (`[]` is the crate root).
struct CrateModules {
    files: BTreeMap<Vec<String>, PathBuf>,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of `file` under `src`, or `None` for a test file.
fn module_path(src: &Path, file: &Path) -> Option<Vec<String>> {
    let rel = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    if stem == "tests" || stem.ends_with("_tests") || parts.iter().any(|p| p == "tests") {
        return None;
    }
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_owned());
    }
    Some(parts)
}

/// The code of a file: comments and everything from the first
/// `#[cfg(test)]` on (test modules come last) left out.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path a `use` item names, its braces expanded.
fn expand_use(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let name = tree.split(" as ").next().unwrap_or_default().trim();
        if !name.is_empty() {
            out.push(format!("{prefix}{name}"));
        }
        return;
    };
    let head = tree.get(..open).unwrap_or_default();
    let body = tree
        .get(open + 1..tree.rfind('}').unwrap_or(tree.len()))
        .unwrap_or_default();
    let prefix = format!("{prefix}{head}");
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand_use(body.get(start..i).unwrap_or_default(), &prefix, out);
                start = i + 1;
            }
            _ => {}
        }
    }
    expand_use(body.get(start..).unwrap_or_default(), &prefix, out);
}

/// The paths a file's code names: its `use` items, and every other
/// `crate::` or `super::` path.
fn named_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = rest.get(..at).and_then(|b| b.chars().last());
        let after = rest.get(at + 4..).unwrap_or_default();
        let end = after.find(';').unwrap_or(after.len());
        if before.is_none_or(|c| !c.is_alphanumeric() && c != '_') {
            expand_use(after.get(..end).unwrap_or_default(), "", &mut out);
        }
        rest = after;
    }
    for root in ["crate::", "super::"] {
        let mut rest = code;
        while let Some(at) = rest.find(root) {
            let tail = rest.get(at..).unwrap_or_default();
            let end = tail
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(tail.len());
            // A macro's `$crate::` path names what the crate root
            // exports, wherever it is defined: not an import of its file.
            let in_macro = rest.get(..at).is_some_and(|b| b.ends_with('$'));
            if !in_macro {
                out.push(tail.get(..end).unwrap_or_default().to_owned());
            }
            rest = rest.get(at + root.len()..).unwrap_or_default();
        }
    }
    out
}

impl CrateModules {
    fn read(src: &Path) -> CrateModules {
        let mut files = Vec::new();
        rust_files(src, &mut files);
        CrateModules {
            files: files
                .into_iter()
                .filter_map(|f| Some((module_path(src, &f)?, f)))
                .collect(),
        }
    }

    /// The file of the deepest module that `path` (as written in the file
    /// of module `here`) names.
    fn target(&self, here: &[String], path: &str) -> Option<&PathBuf> {
        let mut segments = path.split("::").filter(|s| !s.is_empty());
        let first = segments.next()?;
        let mut module: Vec<String> = match first {
            "crate" => Vec::new(),
            "self" => here.to_vec(),
            // A child's `super::` reads its own folder's module (a helper
            // the parent shares with its children): the folder is one
            // unit, and only arrows between folders and files that name
            // each other by `crate::` or as children make a loop here.
            "super" => return None,
            child => {
                let mut m = here.to_vec();
                m.push(child.to_owned());
                if !self.files.contains_key(&m) {
                    return None;
                }
                m
            }
        };
        for s in segments {
            if s == "super" {
                module.pop();
                continue;
            }
            module.push(s.to_owned());
            if !self.files.contains_key(&module) {
                module.pop();
                break;
            }
        }
        self.files.get(&module)
    }
}

/// The strongly connected components of more than one file (Tarjan).
fn loops(arrows: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<BTreeSet<PathBuf>> {
    struct State<'a> {
        arrows: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'a PathBuf, (usize, usize)>,
        stack: Vec<&'a PathBuf>,
        on_stack: BTreeSet<&'a PathBuf>,
        found: Vec<BTreeSet<PathBuf>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a PathBuf) {
        let n = s.index.len();
        s.index.insert(v, (n, n));
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.arrows.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let low_w = s.index[w].1;
                let e = s.index.get_mut(v).unwrap();
                e.1 = e.1.min(low_w);
            } else if s.on_stack.contains(w) {
                let idx_w = s.index[w].0;
                let e = s.index.get_mut(v).unwrap();
                e.1 = e.1.min(idx_w);
            }
        }
        let (idx, low) = s.index[v];
        if idx == low {
            let mut component = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.insert(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        arrows,
        index: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in arrows.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.found
}

#[test]
fn no_crate_has_an_import_loop() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut arrows: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    let mut crate_dirs: Vec<_> = std::fs::read_dir(&crates)
        .expect("crates/ is readable")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    crate_dirs.sort();
    assert!(crate_dirs.len() >= 5, "read {crate_dirs:?}");
    for dir in &crate_dirs {
        let modules = CrateModules::read(&dir.join("src"));
        for (here, file) in &modules.files {
            let text = std::fs::read_to_string(file).expect("a source file is readable");
            let from = file.strip_prefix(&crates).unwrap_or(file).to_path_buf();
            let entry = arrows.entry(from.clone()).or_default();
            for path in named_paths(&code_of(&text)) {
                if let Some(to) = modules.target(here, &path) {
                    let to = to.strip_prefix(&crates).unwrap_or(to).to_path_buf();
                    if to != from {
                        entry.insert(to);
                    }
                }
            }
        }
    }
    // The reading sees arrows at all: the compiler's driver imports its
    // stages.
    let driver = arrows
        .get(Path::new("hookc/src/compile/mod.rs"))
        .expect("the driver is read");
    assert!(
        driver.contains(Path::new("hookc/src/check/policy.rs")),
        "{driver:?}"
    );

    let new = loops(&arrows);
    assert!(
        new.is_empty(),
        "modules import each other around a loop (ARCHITECTURE.md, \"Layers\"):\n{}",
        new.iter()
            .map(|l| format!(
                "  {}",
                l.iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn a_loop_of_two_files_is_found() {
    let a = PathBuf::from("a.rs");
    let b = PathBuf::from("b.rs");
    let c = PathBuf::from("c.rs");
    let arrows = BTreeMap::from([
        (a.clone(), BTreeSet::from([b.clone()])),
        (b.clone(), BTreeSet::from([a.clone(), c.clone()])),
        (c.clone(), BTreeSet::new()),
    ]);
    assert_eq!(loops(&arrows), vec![BTreeSet::from([a, b])]);
}

#[test]
fn use_items_expand_their_braces() {
    let mut out = Vec::new();
    expand_use("crate::a::{b, c::{d, e as f}, self}", "", &mut out);
    assert_eq!(
        out,
        [
            "crate::a::b",
            "crate::a::c::d",
            "crate::a::c::e",
            "crate::a::self"
        ]
    );
}
