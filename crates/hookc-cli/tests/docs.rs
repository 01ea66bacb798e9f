//! The documentation's commands, run: every ```` ```console ```` block of
//! `README.md`, `examples/README.md` and the guide (`docs/src/**/*.md`) is a
//! `trycmd` case, so a change that makes a documented command or output false
//! fails `cargo test`.
//!
//! Each file runs in a fresh directory under the cargo target dir whose
//! entries are links to the repository's top-level entries: commands read
//! `examples/...` as a reader on a fresh clone does, and what they write
//! (`-o policy.hkb`) lands there, not in the source tree. Output is compared
//! exactly, up to trycmd's elisions (`[..]` within a line, `...` for lines).
//!
//! After an intended change of output, re-bless the blocks and review the diff:
//! `TRYCMD=overwrite cargo test -p hookc-cli --test docs`. trycmd rewrites
//! a failing block's whole output, so its elisions are lost: put back the
//! `...` of long warning lists and the `[..]` of timings (`hookc bench`),
//! which would otherwise fail the next run, before committing. trycmd shows
//! a backslash in output as `/`; elide such a line's rest with `[..]`.

// A test fails by panicking, with the path and the reason in the message.
#![allow(clippy::panic)]

use std::path::{Path, PathBuf};

/// The repository root (this crate is `crates/hookc-cli`).
fn repo_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    match root.canonicalize() {
        Ok(root) => root,
        Err(e) => panic!("cannot resolve the repository root {}: {e}", root.display()),
    }
}

/// The markdown files whose console blocks are tested, repository-relative.
fn documented_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![
        PathBuf::from("README.md"),
        PathBuf::from("examples/README.md"),
    ];
    let mut pending = vec![PathBuf::from("docs/src")];
    while let Some(dir) = pending.pop() {
        let entries = match std::fs::read_dir(root.join(&dir)) {
            Ok(entries) => entries,
            Err(e) => panic!("cannot list {}: {e}", dir.display()),
        };
        for entry in entries.flatten() {
            let rel = dir.join(entry.file_name());
            if entry.path().is_dir() {
                pending.push(rel);
            } else if rel.extension().is_some_and(|e| e == "md") {
                files.push(rel);
            }
        }
    }
    files.sort();
    files
}

/// A fresh directory standing for a clone of the repository: one link per
/// top-level entry except build output and git's own.
#[cfg(unix)]
fn fresh_checkout(root: &Path, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("docs")
        .join(name);
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => panic!("cannot clear {}: {e}", dir.display()),
    }
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("cannot create {}: {e}", dir.display());
    }
    let entries = match std::fs::read_dir(root) {
        Ok(entries) => entries,
        Err(e) => panic!("cannot list {}: {e}", root.display()),
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        if let Err(e) = std::os::unix::fs::symlink(entry.path(), dir.join(&name)) {
            panic!("cannot link {}: {e}", entry.path().display());
        }
    }
    dir
}

/// Every console block of every documented file. One test, files one after
/// another: the working directory is the process's, so cases cannot run in
/// parallel threads with different ones.
#[cfg(unix)]
#[test]
fn documented_commands_print_what_the_docs_say() {
    let root = repo_root();
    let mut failed = Vec::new();
    for rel in documented_files(&root) {
        let path = root.join(&rel);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) => panic!("cannot read {}: {e}", path.display()),
        };
        if !text.contains("```console") {
            continue;
        }
        let name = rel.to_string_lossy().replace(['/', '.'], "_");
        let dir = fresh_checkout(&root, &name);
        if let Err(e) = std::env::set_current_dir(&dir) {
            panic!("cannot enter {}: {e}", dir.display());
        }
        let run = std::panic::catch_unwind(|| {
            trycmd::TestCases::new()
                .register_bin("hookc", PathBuf::from(env!("CARGO_BIN_EXE_hookc")))
                // The artifact cache of policy sources under the target
                // folder, not beside the linked repository's policies.
                .env(
                    "HOOKC_CACHE_DIR",
                    Path::new(env!("CARGO_TARGET_TMPDIR"))
                        .join("hookc-cache")
                        .display()
                        .to_string(),
                )
                // Session memory (`remember`) under the target folder.
                .env(
                    "HOOKC_STATE_DIR",
                    Path::new(env!("CARGO_TARGET_TMPDIR"))
                        .join(format!("hookc-state/docs-{}-{name}", std::process::id()))
                        .display()
                        .to_string(),
                )
                .case(&path)
                .run();
        });
        if run.is_err() {
            failed.push(rel.display().to_string());
        }
    }
    assert!(
        failed.is_empty(),
        "documented commands differ in {failed:?} (after an intended change: \
         TRYCMD=overwrite cargo test -p hookc-cli --test docs, then review the diff)"
    );
}

/// The README's first command is the one a newcomer runs before installing
/// anything (`cargo run ... -- compile ...`, which a test cannot run cheaply);
/// its `hookc` arguments must be a tested command of the README.
#[test]
fn readme_first_command_is_a_tested_one() {
    let root = repo_root();
    let readme = match std::fs::read_to_string(root.join("README.md")) {
        Ok(text) => text,
        Err(e) => panic!("cannot read README.md: {e}"),
    };
    let prefix = "cargo run --release -p hookc-cli -- ";
    let first = readme.lines().find_map(|line| line.strip_prefix(prefix));
    let Some(args) = first else {
        panic!("README.md has no `{prefix}...` line");
    };
    let tested = format!("$ hookc {args}");
    assert!(
        readme.lines().any(|line| line == tested),
        "README.md runs `{prefix}{args}` but no console block runs `{tested}`"
    );
}

/// The diagnostics reference has a section for every code of the registry,
/// `### CODE: title` with the registry's title, and an example command in it
/// whose output shows the code: a new code without its example fails here.
#[test]
fn every_diagnostic_code_has_a_documented_example() {
    let root = repo_root();
    let page = root.join("docs/src/reference/diagnostics.md");
    let text = match std::fs::read_to_string(&page) {
        Ok(text) => text,
        Err(e) => panic!("cannot read {}: {e}", page.display()),
    };
    let mut missing = Vec::new();
    for code in hookc::diag::Code::ALL {
        let heading = format!("### {}: {}\n", code.as_str(), code.title());
        let shown = format!("{}[{}]", code.severity().as_str(), code.as_str());
        let section = text.split_once(&heading).map(|(_, rest)| {
            rest.split_once("\n### ")
                .map_or(rest, |(section, _)| section)
        });
        match section {
            Some(section)
                if section.contains("```console\n$ hookc ") && section.contains(&shown) => {}
            _ => missing.push(code.as_str()),
        }
    }
    assert!(
        missing.is_empty(),
        "docs/src/reference/diagnostics.md lacks `### CODE: title` with an example for {missing:?}"
    );
}

/// Every relative link of the README, `examples/README.md` and the guide
/// names a file or folder that exists (anchors are not checked): a chapter
/// moved or renamed fails here, not in a reader's browser.
#[test]
fn relative_links_name_existing_files() {
    let root = repo_root();
    let mut broken = Vec::new();
    for rel in documented_files(&root) {
        let path = root.join(&rel);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) => panic!("cannot read {}: {e}", path.display()),
        };
        let dir = path.parent().unwrap_or(&root);
        let mut in_code = false;
        for line in text.lines() {
            if line.starts_with("```") {
                in_code = !in_code;
            }
            if in_code {
                continue;
            }
            for (_, rest) in line.match_indices("](").map(|(i, _)| line.split_at(i + 2)) {
                let Some(end) = rest.find(')') else { continue };
                let target = rest.get(..end).unwrap_or("");
                let file = target.split('#').next().unwrap_or("");
                if file.is_empty() || file.contains("://") || file.contains(' ') {
                    continue;
                }
                if !dir.join(file).exists() {
                    broken.push(format!("{}: {target}", rel.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "links to missing files: {broken:#?}");
}

/// A hook-file example of the guide, as it is compiled: the block's text
/// made a whole policy.
enum PolicyExample {
    /// A whole hook file (YAML with `hooks:`, or a directive XML file).
    Whole(String),
    /// Hooks of a list (`- id: ...`), compiled under `hooks:` of the host
    /// the page last named, else Claude Code's (the guards chapter writes
    /// its guard for Claude Code).
    Hooks(String),
    /// Top-level keys other than hooks (`on_error:`, `events:`), compiled
    /// with no hooks, under the host the page last named if it named one.
    TopLevel(String),
    /// A hook's `condition:` tree, compiled in a hook of the built-in
    /// schema.
    Condition(String),
    /// Not a hook file: a host profile's `answers` (`hosts/profiles.md`),
    /// or a test file (`hookc test`, run by the console blocks).
    Other,
}

impl PolicyExample {
    fn of(lang: &str, body: &str) -> PolicyExample {
        let first = body.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let text = body.to_owned();
        match (lang, first.trim_start()) {
            ("xml", _) => PolicyExample::Whole(text),
            (_, l) if l.starts_with("- id:") => PolicyExample::Hooks(text),
            (_, "condition:") => PolicyExample::Condition(text),
            (_, l) if l.starts_with("policy:") || first.starts_with("PermissionRequest:") => {
                PolicyExample::Other
            }
            _ if body.lines().any(|l| l.starts_with("hooks:")) => PolicyExample::Whole(text),
            _ => PolicyExample::TopLevel(text),
        }
    }

    /// The policy to compile; `None` for [`PolicyExample::Other`].
    fn policy(&self, host: Option<&str>) -> Option<String> {
        let indented =
            |t: &str, by: &str| -> String { t.lines().map(|l| format!("{by}{l}\n")).collect() };
        Some(match self {
            PolicyExample::Whole(t) => t.clone(),
            PolicyExample::Hooks(t) => format!(
                "host: {}\nhooks:\n{}",
                host.unwrap_or("claude-code"),
                indented(t, "  ")
            ),
            PolicyExample::TopLevel(t) => match host {
                Some(host) if !t.lines().any(|l| l.starts_with("host:")) => {
                    format!("host: {host}\n{t}hooks: []\n")
                }
                _ => format!("{t}hooks: []\n"),
            },
            PolicyExample::Condition(t) => format!(
                "hooks:\n  - id: example\n    event: error\n    action: {{type: abort}}\n{}",
                indented(t, "    ")
            ),
            PolicyExample::Other => return None,
        })
    }
}

/// Every ```` ```yaml ```` and ```` ```xml ```` block of the guide that is
/// a hook file, or part of one, compiles without errors, as the page
/// shows it: an example that stopped compiling (a renamed key, a function
/// that changed) fails here, not in a reader's editor.
#[test]
fn every_policy_example_of_the_guide_compiles() {
    let root = repo_root();
    let mut failures = Vec::new();
    let mut compiled = 0;
    for rel in documented_files(&root) {
        let path = root.join(&rel);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) => panic!("cannot read {}: {e}", path.display()),
        };
        let mut host: Option<String> = None;
        // The language, the first line, the body, and the fence's indent
        // (a block in a list item is indented).
        let mut block: Option<(String, usize, String, usize)> = None;
        for (n, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if let Some((lang, start, body, indent)) = &mut block {
                let line = line.get(*indent..).unwrap_or(trimmed);
                if trimmed.starts_with("```") {
                    let example = PolicyExample::of(lang, body);
                    if let Some(policy) = example.policy(host.as_deref()) {
                        let name = if lang == "xml" {
                            "example.xml"
                        } else {
                            "example.yaml"
                        };
                        let c = hookc::compile::compile(&[hookc::compile::Input::new(
                            name,
                            policy.as_str(),
                        )]);
                        compiled += 1;
                        if c.diagnostics.has_errors() {
                            let errors: Vec<_> = c.diagnostics.iter().collect();
                            let shown = hookc::diag::render::human(&errors, &c.sources);
                            failures.push(format!("{}:{start}:\n{policy}\n{shown}", rel.display()));
                        }
                    }
                    block = None;
                } else {
                    if let Some(named) = line.strip_prefix("host: ") {
                        host = Some(named.trim().to_owned());
                    }
                    body.push_str(line);
                    body.push('\n');
                }
                continue;
            }

            if let Some(lang) = trimmed.strip_prefix("```") {
                let lang = lang.split(',').next().unwrap_or("");
                if lang == "yaml" || lang == "xml" {
                    let indent = line.len() - trimmed.len();
                    block = Some((lang.to_owned(), n + 1, String::new(), indent));
                }
            }
        }
    }
    assert!(compiled >= 15, "only {compiled} examples found");
    assert!(
        failures.is_empty(),
        "guide examples that do not compile:\n{}",
        failures.join("\n")
    );
}
