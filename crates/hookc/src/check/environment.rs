//! Declared environment variables (`env:`;
//! `docs/src/semantics.md#environment-variables`): the variables of the
//! process that runs the hook a policy may read, as `env.NAME`.
//!
//! Each is declared by name, with an optional `description` and `enum`
//! (the values it may take); every one is a string, as the environment
//! holds them (`type: string` may be written, no other type). The schema
//! gets a closed object `env` of them
//! ([`ContextSchema::with_environment`](crate::check::schema::ContextSchema::with_environment)),
//! so reading an undeclared variable is E0300 and comparing one with a
//! value outside its `enum` is flagged as any enum is. Several files may
//! declare variables; one declared twice must be declared the same (else
//! [`Code::DuplicateDefinition`]).

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::{Node, NodeKind};
use crate::span::{SourceMap, Span};
use crate::suggest;
use serde_json::Value;

/// The keys of a variable's declaration.
pub const VARIABLE_KEYS: &[&str] = &["description", "enum", "type"];

/// One declared variable.
#[derive(Debug, Clone, PartialEq)]
pub struct DeclaredVariable {
    /// Its name (`CI`).
    pub name: String,
    /// `description`.
    pub description: Option<String>,
    /// `enum`: the values it may take.
    pub allowed: Option<Vec<String>>,
    /// Where its name is declared.
    span: Span,
}

/// The variables the policy's files declare, in declaration order.
#[derive(Debug, Clone, Default)]
pub struct DeclaredEnvironment {
    vars: Vec<DeclaredVariable>,
}

impl DeclaredEnvironment {
    /// Reads every file's `env:` mapping (reporting what is wrong, leaving
    /// it out).
    pub fn read<'n>(
        nodes: impl Iterator<Item = &'n Node>,
        sources: &SourceMap,
        diags: &mut Diagnostics,
    ) -> DeclaredEnvironment {
        let mut out = DeclaredEnvironment::default();
        for node in nodes {
            let Some(entries) = node.as_map() else {
                diags.push(
                    Diagnostic::new(
                        Code::WrongShape,
                        "`env` is a mapping of variable names to their declarations",
                    )
                    .at(node.span)
                    .node("env")
                    .help("write `env: {CI: {description: \"set by the CI runner\"}}`"),
                );
                continue;
            };
            for (key, decl) in entries {
                let at = format!("env.{}", key.name);
                if !hookc_runtime::bytecode::path::is_plain_field(&key.name) {
                    diags.push(
                        Diagnostic::new(
                            Code::WrongShape,
                            format!("`{}` is not a variable name a policy can read", key.name),
                        )
                        .at(key.span)
                        .node(at)
                        .help("a name is a letter or `_`, then letters, digits and `_`"),
                    );
                    continue;
                }
                let Some(var) = variable(&key.name, key.span, decl, &at, diags) else {
                    continue;
                };
                match out.vars.iter().find(|v| v.name == var.name) {
                    Some(first)
                        if first.description != var.description || first.allowed != var.allowed =>
                    {
                        diags.push(
                            Diagnostic::new(
                                Code::DuplicateDefinition,
                                format!("variable `{}` is declared twice, differently", var.name),
                            )
                            .at(var.span)
                            .node(at)
                            .note(format!(
                                "first declared at {}",
                                sources.location(first.span)
                            ))
                            .help("declare each variable once, or the same way in every file"),
                        );
                    }
                    Some(_) => {}
                    None => out.vars.push(var),
                }
            }
        }
        out
    }

    /// Whether any file declares a variable.
    pub fn is_declared(&self) -> bool {
        !self.vars.is_empty()
    }

    /// The variables, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = &DeclaredVariable> {
        self.vars.iter()
    }

    /// The declarations as a hook file writes them (`--emit`).
    pub fn to_json(&self) -> Value {
        let vars = self.vars.iter().map(|v| {
            let mut decl = serde_json::Map::new();
            if let Some(d) = &v.description {
                decl.insert("description".into(), d.clone().into());
            }
            if let Some(allowed) = &v.allowed {
                decl.insert("enum".into(), allowed.clone().into());
            }
            (v.name.clone(), Value::Object(decl))
        });
        Value::Object(vars.collect())
    }
}

/// One variable's declaration: `{}` (or nothing), or a mapping of
/// [`VARIABLE_KEYS`]; `None` (reported) when it is not one.
fn variable(
    name: &str,
    span: Span,
    decl: &Node,
    at: &str,
    diags: &mut Diagnostics,
) -> Option<DeclaredVariable> {
    let mut var = DeclaredVariable {
        name: name.to_owned(),
        description: None,
        allowed: None,
        span,
    };
    let entries = match &decl.kind {
        NodeKind::Null => return Some(var),
        NodeKind::Map(entries) => entries,
        _ => {
            diags.push(
                Diagnostic::new(
                    Code::WrongShape,
                    format!("the declaration of `{name}` is a mapping"),
                )
                .at(decl.span)
                .node(at)
                .help("write `{}`, or `{description: ..., enum: [...]}`"),
            );
            return None;
        }
    };
    let mut ok = true;
    for (key, value) in entries {
        let field = format!("{at}.{}", key.name);
        let wrong = |what: &str, help: &str| {
            Diagnostic::new(
                Code::WrongShape,
                format!("`{}` of `{name}` is {what}", key.name),
            )
            .at(value.span)
            .node(field.clone())
            .help(help)
        };
        match key.name.as_str() {
            "description" => match value.as_str() {
                Some(text) => var.description = Some(text.to_owned()),
                None => {
                    diags.push(wrong("not a string", "write the description as a string"));
                    ok = false;
                }
            },
            "type" => {
                if value.as_str() != Some("string") {
                    diags.push(wrong(
                        "not `string`",
                        "an environment variable is a string: compare it with strings, or list its values in `enum`",
                    ));
                    ok = false;
                }
            }
            "enum" => {
                let values: Option<Vec<String>> = value
                    .as_seq()
                    .map(|items| {
                        items
                            .iter()
                            .map(|i| i.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or(None);
                match values {
                    Some(values) if !values.is_empty() => var.allowed = Some(values),
                    _ => {
                        diags.push(wrong(
                            "not a list of strings",
                            "list the values it may take: `enum: [prod, staging]`",
                        ));
                        ok = false;
                    }
                }
            }
            other => {
                diags.push(
                    Diagnostic::new(
                        Code::UnknownKey,
                        format!("unknown key `{other}` in the declaration of `{name}`"),
                    )
                    .at(key.span)
                    .node(field)
                    .maybe_help(suggest::help_for(other, VARIABLE_KEYS.iter().copied())),
                );
                ok = false;
            }
        }
    }
    ok.then_some(var)
}
