//! Checking one action against its action type: each parameter typed (XML
//! text coerced), `enum`s enforced, `${path}` templates parsed and checked
//! against the context schema, XML `<param>` children gathered into the
//! object parameter, and defaults filled in.

use super::{backticked, child, found, kinds_phrase, list, render, same};
use super::{Action, ActionType, ActionTypes, ActionValue, ParamDef, ParamType};
use crate::check::schema::ContextSchema;
use crate::check::template::{self, Parsed, Template};
use crate::check::ty::Type;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::{Node, NodeKind};
use crate::frontend::RawAction;
use crate::span::{FileId, Span, Spanned};
use crate::suggest;
use hookc_runtime::bytecode::path::PathTable;
use std::collections::HashSet;

/// Checks an action against its action type and returns it complete, or
/// `None` when it has errors (all of them reported, each at the most precise
/// span, with the YAML node path when `raw.node_path` is given).
///
/// Every string anywhere in the parameters is read as a template
/// ([`template::parse`]) and each referenced path is checked against the
/// context schema ([`ContextSchema::type_of_path`]: a warning outside an open
/// schema, an error outside a closed one).
///
/// Templates and types: a whole template (`"${event.tokens_used}"`) keeps the
/// value's type, so it is accepted for a typed parameter when the path's kinds
/// meet the parameter's (an untyped path always does); a template inside a
/// longer string is a string.
///
/// Templates and enums: a whole template is accepted for an enum parameter
/// unless the path's schema `enum` lists a value (other than `null`, which any
/// missing path yields) outside the parameter's enum; a path without a schema
/// enum cannot be checked and is accepted. A template inside a longer string
/// is rejected: text around a reference makes an enum value only by accident.
pub fn check_action(
    raw: &RawAction,
    source: &str,
    types: &ActionTypes,
    schema: &ContextSchema,
    paths: &mut PathTable,
    diags: &mut Diagnostics,
) -> Option<Action> {
    let errors_before = diags.error_count();
    let np = raw.node_path.as_deref();
    let kind = raw.kind.value.as_str();
    let mut cx = ParamChecker {
        kind,
        source,
        schema,
        paths,
        diags,
    };
    // Strings and lists past the limits, before anything reads them.
    let mut too_large = false;
    for (key, value) in raw.params.iter().chain(&raw.xml_params) {
        let what = format!("parameter `{}` of `{kind}`", key.value);
        if let Some(d) = value.too_large(&what) {
            cx.push(d, child(np, &key.value).as_deref());
            too_large = true;
        }
    }
    if too_large {
        return None;
    }
    let Some(ty) = types.get(kind) else {
        let d = Diagnostic::new(
            Code::UnknownActionType,
            format!("unknown action type `{kind}`"),
        )
        .at(raw.kind.span)
        .label("not an action type")
        .maybe_help(suggest::help_for(kind, types.names()));
        cx.push(d, child(np, "type").as_deref());
        // The parameters cannot be typed, but their templates can be checked.
        for (key, value) in raw.params.iter().chain(&raw.xml_params) {
            let _ = cx.untyped(value, child(np, &key.value).as_deref(), 0);
        }
        return None;
    };

    let mut slots: Vec<Slot<'_>> = ty
        .params
        .iter()
        .map(|def| Slot {
            def,
            given: false,
            value: None,
        })
        .collect();
    let xml_target = if raw.xml_params.is_empty() {
        None
    } else {
        cx.xml_target(ty, &raw.xml_params)
    };

    for (key, value) in &raw.params {
        let name = key.value.as_str();
        let pnp = child(np, name);
        let Some((index, slot)) = slots
            .iter_mut()
            .enumerate()
            .find(|(_, s)| s.def.name == name)
        else {
            cx.unknown_param(ty, key, pnp.as_deref());
            continue;
        };
        if slot.given {
            // A repeated key: the front end reports it.
            continue;
        }
        slot.given = true;
        if xml_target == Some(index) {
            let d = Diagnostic::new(
                Code::ParameterType,
                format!(
                    "parameter `{name}` of `{kind}` is given both as an attribute and as `<param>` children"
                ),
            )
            .at(key.span)
            .label("given here too")
            .help("drop the attribute: the `<param>` children fill it");
            cx.push(d, pnp.as_deref());
            continue;
        }
        slot.value = cx.param(slot.def, value, pnp.as_deref());
    }

    if let Some(slot) = xml_target
        .and_then(|i| slots.get_mut(i))
        .filter(|s| !s.given)
    {
        slot.given = true;
        slot.value = cx.xml_object(slot.def, &raw.xml_params, np);
    }

    for slot in &slots {
        if slot.def.required && !slot.given {
            let name = slot.def.name.as_str();
            let help = match (np, slot.def.ty) {
                (Some(_), _) => format!("add `{name}: ...` to the action"),
                (None, Some(ParamType::Object)) => "add `<param name=\"...\">` children".to_owned(),
                (None, _) => format!("add the attribute `{name}=\"...\"`"),
            };
            let d = Diagnostic::new(
                Code::MissingParameter,
                format!("missing required parameter `{name}` of `{kind}`"),
            )
            .at(raw.span)
            .label(format!("`{name}` is required"))
            .help(help);
            cx.push(d, np);
        }
    }

    if cx.diags.error_count() > errors_before {
        return None;
    }
    let params = slots
        .into_iter()
        .filter_map(|slot| {
            let value = slot.value.or_else(|| slot.def.default.clone())?;
            Some((slot.def.name.clone(), value))
        })
        .collect();
    Some(Action {
        kind: kind.to_owned(),
        effect: ty.effect(),
        params,
        span: raw.span,
    })
}

/// One parameter of the action type while an action is checked.
struct Slot<'t> {
    def: &'t ParamDef,
    /// Whether the action gives it (even with an invalid value).
    given: bool,
    /// Its checked value.
    value: Option<ActionValue>,
}

/// What checking one action needs.
struct ParamChecker<'a> {
    /// The action type's name.
    kind: &'a str,
    /// The text of the file the action is in, so that a template's spans
    /// point inside its string when the string is written verbatim.
    source: &'a str,
    schema: &'a ContextSchema,
    paths: &'a mut PathTable,
    diags: &'a mut Diagnostics,
}

impl ParamChecker<'_> {
    fn push(&mut self, d: Diagnostic, np: Option<&str>) {
        self.diags.push(match np {
            Some(np) => d.node(np),
            None => d,
        });
    }

    fn unknown_param(&mut self, ty: &ActionType, key: &Spanned<String>, np: Option<&str>) {
        let kind = self.kind;
        let name = key.value.as_str();
        let help = if ty.params.is_empty() {
            Some(format!("`{kind}` takes no parameters"))
        } else {
            suggest::help_for(name, ty.params.iter().map(|p| p.name.as_str()))
        };
        let d = Diagnostic::new(
            Code::UnknownParameter,
            format!("action type `{kind}` has no parameter `{name}`"),
        )
        .at(key.span)
        .label("unknown parameter")
        .maybe_help(help);
        self.push(d, np);
    }

    /// The object parameter that XML `<param>` children fill, reporting when
    /// the action type has none or several.
    fn xml_target(&mut self, ty: &ActionType, xml: &[(Spanned<String>, Node)]) -> Option<usize> {
        let kind = self.kind;
        let objects: Vec<(usize, &str)> = ty
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| p.ty == Some(ParamType::Object))
            .map(|(i, p)| (i, p.name.as_str()))
            .collect();
        let span = xml.first().map(|(k, _)| k.span)?;
        match objects.as_slice() {
            [(i, _)] => return Some(*i),
            [] => {
                let help = if ty.params.is_empty() {
                    format!("`{kind}` takes no parameters")
                } else {
                    let names: Vec<&str> = ty.params.iter().map(|p| p.name.as_str()).collect();
                    format!("give its parameters as attributes: {}", backticked(&names))
                };
                let d = Diagnostic::new(
                    Code::UnknownParameter,
                    format!("action type `{kind}` has no object parameter for `<param>` children to fill"),
                )
                .at(span)
                .label("`<param>` not allowed here")
                .help(help);
                self.push(d, None);
            }
            several => {
                let names: Vec<&str> = several.iter().map(|(_, n)| *n).collect();
                let d = Diagnostic::new(
                    Code::UnknownParameter,
                    format!(
                        "action type `{kind}` has several object parameters ({}), so `<param>` children are ambiguous",
                        backticked(&names)
                    ),
                )
                .at(span)
                .label("which parameter does this fill?")
                .help("write the action in a YAML hook file, where each object parameter is a mapping");
                self.push(d, None);
            }
        }
        None
    }

    /// The object built from XML `<param name="k">v</param>` children.
    fn xml_object(
        &mut self,
        def: &ParamDef,
        xml: &[(Spanned<String>, Node)],
        np: Option<&str>,
    ) -> Option<ActionValue> {
        let mut seen = HashSet::new();
        let mut entries = Vec::with_capacity(xml.len());
        let mut ok = true;
        for (name, node) in xml {
            let pnp = child(np, &def.name).and_then(|p| child(Some(&p), &name.value));
            if !seen.insert(name.value.as_str()) {
                let d = Diagnostic::new(
                    Code::DuplicateKey,
                    format!("`<param name=\"{}\">` is given twice", name.value),
                )
                .at(name.span)
                .label("given again here");
                self.push(d, pnp.as_deref());
                ok = false;
                continue;
            }
            match self.untyped(node, pnp.as_deref(), 1) {
                Some(v) => entries.push((name.value.clone(), v)),
                None => ok = false,
            }
        }
        let value = ActionValue::Object(entries);
        let span = xml
            .first()
            .map_or(Span::new(FileId(0), 0, 0), |(k, _)| k.span);
        (ok && self.check_enum(def, &value, span, np)).then_some(value)
    }

    /// A parameter value checked against its definition.
    fn param(&mut self, def: &ParamDef, node: &Node, np: Option<&str>) -> Option<ActionValue> {
        let value = match &node.kind {
            NodeKind::Str(text) | NodeKind::Text(text) => match self.string(text, node, np)? {
                Parsed::Template(t) => return self.template_param(def, text, t, node.span, np),
                Parsed::Literal(lit) => match (&node.kind, def.ty) {
                    (NodeKind::Text(_), Some(ty)) => self.coerce(def, ty, lit, node, np)?,
                    (_, None | Some(ParamType::String)) => ActionValue::String(lit),
                    (_, Some(ty)) => {
                        self.type_error(def, ty, "a string", node.span, np);
                        return None;
                    }
                },
            },
            _ => {
                if let Some(ty) = def.ty.filter(|ty| !ty.fits_node(node)) {
                    self.type_error(def, ty, found(node), node.span, np);
                    return None;
                }
                self.untyped(node, np, 1)?
            }
        };
        self.check_enum(def, &value, node.span, np).then_some(value)
    }

    fn type_error(
        &mut self,
        def: &ParamDef,
        ty: ParamType,
        found: &str,
        span: Span,
        np: Option<&str>,
    ) {
        let d = Diagnostic::new(
            Code::ParameterType,
            format!(
                "parameter `{}` of `{}` must be {}, found {found}",
                def.name,
                self.kind,
                ty.phrase()
            ),
        )
        .at(span)
        .label(format!("expected {}", ty.phrase()));
        self.push(d, np);
    }

    /// An XML text literal read as the declared type.
    fn coerce(
        &mut self,
        def: &ParamDef,
        ty: ParamType,
        lit: String,
        node: &Node,
        np: Option<&str>,
    ) -> Option<ActionValue> {
        let text = lit.trim();
        let value = match ty {
            ParamType::String => Some(ActionValue::String(lit.clone())),
            ParamType::Integer => text.parse::<i64>().ok().map(ActionValue::Int),
            ParamType::Number => text.parse::<i64>().ok().map(ActionValue::Int).or_else(|| {
                text.parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite())
                    .map(ActionValue::Double)
            }),
            ParamType::Boolean => match text {
                "true" => Some(ActionValue::Bool(true)),
                "false" => Some(ActionValue::Bool(false)),
                _ => None,
            },
            ParamType::Object | ParamType::Array => None,
        };
        if value.is_some() {
            return value;
        }
        let help = match ty {
            ParamType::Boolean => Some("write `true` or `false`".to_owned()),
            ParamType::Object => {
                Some("write its entries as `<param name=\"key\">value</param>` children".to_owned())
            }
            ParamType::Array => Some(
                "an array cannot be written as an XML attribute; use a YAML hook file".to_owned(),
            ),
            _ => None,
        };
        let d = Diagnostic::new(
            Code::ParameterType,
            format!(
                "parameter `{}` of `{}` must be {}, found `{lit}`",
                def.name,
                self.kind,
                ty.phrase()
            ),
        )
        .at(node.span)
        .label(format!("expected {}", ty.phrase()))
        .maybe_help(help);
        self.push(d, np);
        None
    }

    /// Checks a literal value against the definition's `enum`.
    fn check_enum(
        &mut self,
        def: &ParamDef,
        value: &ActionValue,
        span: Span,
        np: Option<&str>,
    ) -> bool {
        let Some(allowed) = &def.allowed else {
            return true;
        };
        if allowed.iter().any(|a| same(a, value)) {
            return true;
        }
        let names: Vec<String> = allowed.iter().map(render).collect();
        let help = match value {
            ActionValue::String(s) => suggest::did_you_mean(s, names.iter().map(String::as_str))
                .map(|best| format!("did you mean `{best}`?")),
            _ => None,
        }
        .unwrap_or_else(|| format!("expected one of {}", list(allowed)));
        let d = Diagnostic::new(
            Code::ParameterEnum,
            format!(
                "parameter `{}` of `{}` does not allow `{}`",
                def.name,
                self.kind,
                render(value)
            ),
        )
        .at(span)
        .label("not one of its values")
        .help(help);
        self.push(d, np);
        false
    }

    /// A template given for a parameter: its paths checked, then its type and
    /// enum against the definition (see [`check_action`]).
    fn template_param(
        &mut self,
        def: &ParamDef,
        text: &str,
        t: Template,
        span: Span,
        np: Option<&str>,
    ) -> Option<ActionValue> {
        let types = self.check_refs(&t, np);
        let kind = self.kind;
        let name = def.name.as_str();
        match types.first().filter(|_| t.is_whole()) {
            Some(path_ty) => {
                if let Some(ty) = def.ty {
                    if !path_ty.kinds.is_empty() && !path_ty.kinds.intersects(ty.kinds()) {
                        let d = Diagnostic::new(
                            Code::ParameterType,
                            format!(
                                "`{text}` is {} but parameter `{name}` of `{kind}` must be {}",
                                kinds_phrase(path_ty.kinds),
                                ty.phrase()
                            ),
                        )
                        .at(span)
                        .label(format!("expected {}", ty.phrase()));
                        self.push(d, np);
                        return None;
                    }
                }
                if let (Some(allowed), Some(schema_enum)) =
                    (&def.allowed, self.schema.allowed(path_ty.schema))
                {
                    let outside: Vec<ActionValue> = schema_enum
                        .iter()
                        .map(ActionValue::from_json)
                        .filter(|v| *v != ActionValue::Null && !allowed.iter().any(|a| same(a, v)))
                        .collect();
                    if !outside.is_empty() {
                        let d = Diagnostic::new(
                            Code::ParameterEnum,
                            format!(
                                "`{text}` may be {}, which parameter `{name}` of `{kind}` does not allow",
                                list(&outside)
                            ),
                        )
                        .at(span)
                        .label("the schema allows other values")
                        .help(format!("expected one of {}", list(allowed)));
                        self.push(d, np);
                        return None;
                    }
                }
            }
            None => {
                if let Some(ty) = def.ty.filter(|ty| *ty != ParamType::String) {
                    let d = Diagnostic::new(
                        Code::ParameterType,
                        format!(
                            "`{text}` is a string but parameter `{name}` of `{kind}` must be {}",
                            ty.phrase()
                        ),
                    )
                    .at(span)
                    .label(format!("expected {}", ty.phrase()))
                    .help("only a template that is exactly one `${path}` keeps the value's type");
                    self.push(d, np);
                    return None;
                }
                if let Some(allowed) = &def.allowed {
                    let d = Diagnostic::new(
                        Code::ParameterEnum,
                        format!("parameter `{name}` of `{kind}` does not allow the interpolated string `{text}`"),
                    )
                    .at(span)
                    .label("not one of its values")
                    .help(format!("write one of {}, or a template that is exactly one `${{path}}`", list(allowed)));
                    self.push(d, np);
                    return None;
                }
            }
        }
        Some(ActionValue::Template(t))
    }

    /// Checks every path of a template against the schema; their types in order.
    fn check_refs(&mut self, t: &Template, np: Option<&str>) -> Vec<Type> {
        let mut out = Vec::new();
        for (id, span) in t.refs() {
            let Some(path) = self.paths.get(id).cloned() else {
                continue;
            };
            let mut found = Diagnostics::new();
            out.push(self.schema.type_of_path(&path, span, &mut found));
            for mut d in found.into_vec() {
                if d.code == Code::PathNotInSchema
                    && d.help.is_none()
                    && looks_like_shell_variable(&path)
                {
                    d = d.help(format!(
                        "if `${{{path}}}` is for a shell to expand, write `$${{{path}}}`: `$${{` is a literal `${{`"
                    ));
                }
                self.push(d, np);
            }
        }
        out
    }

    /// A string read as a template; `None` (reported) when it does not parse.
    fn string(&mut self, text: &str, node: &Node, np: Option<&str>) -> Option<Parsed> {
        let origin = crate::frontend::yaml_doc::origin_of(self.source, node);
        match template::parse(text, origin, self.paths) {
            Ok(parsed) => Some(parsed),
            Err(d) => {
                self.push(d, np);
                None
            }
        }
    }

    /// A value of no declared type (inside an object or array parameter, or of
    /// an untyped parameter): strings are templates, everything else as is.
    fn untyped(&mut self, node: &Node, np: Option<&str>, depth: usize) -> Option<ActionValue> {
        if depth > hookc_runtime::limits::MAX_DOC_DEPTH {
            let d = Diagnostic::new(Code::TooDeep, "action parameter value is nested too deeply")
                .at(node.span);
            self.push(d, np);
            return None;
        }
        Some(match &node.kind {
            NodeKind::Null => ActionValue::Null,
            NodeKind::Bool(b) => ActionValue::Bool(*b),
            NodeKind::Int(i) => ActionValue::Int(*i),
            NodeKind::Float(f) if f.is_finite() => ActionValue::Double(*f),
            NodeKind::Float(f) => {
                let d = Diagnostic::new(
                    Code::ParameterType,
                    format!(
                        "`{f}` in a parameter of `{}` is not a finite number",
                        self.kind
                    ),
                )
                .at(node.span)
                .label("JSON has no such number");
                self.push(d, np);
                return None;
            }
            NodeKind::Str(text) | NodeKind::Text(text) => match self.string(text, node, np)? {
                Parsed::Literal(s) => ActionValue::String(s),
                Parsed::Template(t) => {
                    self.check_refs(&t, np);
                    ActionValue::Template(t)
                }
            },
            NodeKind::Seq(items) => {
                let mut out = Vec::with_capacity(items.len());
                let mut ok = true;
                for (i, item) in items.iter().enumerate() {
                    let inp = np.map(|p| format!("{p}[{i}]"));
                    match self.untyped(item, inp.as_deref(), depth + 1) {
                        Some(v) => out.push(v),
                        None => ok = false,
                    }
                }
                if !ok {
                    return None;
                }
                ActionValue::List(out)
            }
            NodeKind::Map(entries) => {
                let mut out = Vec::with_capacity(entries.len());
                let mut ok = true;
                for (k, v) in entries {
                    match self.untyped(v, child(np, &k.name).as_deref(), depth + 1) {
                        Some(v) => out.push((k.name.clone(), v)),
                        None => ok = false,
                    }
                }
                if !ok {
                    return None;
                }
                ActionValue::Object(out)
            }
        })
    }
}

/// Whether a template path reads like a shell or environment variable
/// (`HOME`, `PROJECT_ROOT`): one root, upper-case letters, digits and `_`.
/// Context keys are rarely written so, and a shell command in a parameter
/// is the usual reason: the warning then says how to keep it literal.
fn looks_like_shell_variable(path: &hookc_runtime::bytecode::Path) -> bool {
    let root = path.root_name();
    path.segments().is_empty()
        && root.chars().any(|c| c.is_ascii_uppercase())
        && root
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}
