//! Checking one action against its action type: each parameter typed (XML
//! text coerced), `enum`s enforced, `${path}` templates parsed and checked
//! against the context schema, XML `<param>` children gathered into the
//! object parameter, and defaults filled in.

use super::{all_or_none, backticked, child, found, kinds_phrase, list, render, value_phrase};
use super::{Action, ActionType, ActionTypes, ActionValue, ParamDef, ParamType, TypeDef};
use crate::check::schema::ContextSchema;
use crate::check::template::{self, Parsed, Template};
use crate::check::ty::Kinds;
use crate::check::ty::Type;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::{Node, NodeKind};
use crate::frontend::RawAction;
use crate::resolve::ast_to_ir::LocalDef;
use crate::span::{FileId, Origin, Span, Spanned};
use crate::suggest;
use hookc_runtime::bytecode::is_integral;
use hookc_runtime::bytecode::path::{Path, PathTable, Segment};
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
///
/// `locals` are the local names a template expression may use (the
/// policy's and the hook's own; `docs/src/semantics.md#local-names`).
pub fn check_action(
    raw: &RawAction,
    source: &str,
    types: &ActionTypes,
    schema: &ContextSchema,
    paths: &mut PathTable,
    locals: [&[LocalDef]; 2],
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
        locals,
        diags,
        regexes: crate::check::typeck::RegexMemo::default(),
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
            let object = slot.def.ty.types().contains(&ParamType::Object);
            let help = match (np, object) {
                (Some(_), _) => format!("add `{name}: ...` to the action"),
                (None, true) => "add `<param name=\"...\">` children".to_owned(),
                (None, false) => format!("add the attribute `{name}=\"...\"`"),
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
    /// The local names template expressions may use.
    locals: [&'a [LocalDef]; 2],
    diags: &'a mut Diagnostics,
    /// The regexes of template expressions already compiled.
    regexes: crate::check::typeck::RegexMemo,
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
            .filter(|(_, p)| p.ty.types().contains(&ParamType::Object))
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
        (ok && self.check_fit(def, &value, span, np)).then_some(value)
    }

    /// A parameter value checked against its definition.
    fn param(&mut self, def: &ParamDef, node: &Node, np: Option<&str>) -> Option<ActionValue> {
        let value = match &node.kind {
            NodeKind::Str(text) | NodeKind::Text(text) => match self.string(text, node, np)? {
                Parsed::Template(t) => return self.template_param(def, text, t, node.span, np),
                Parsed::Literal(lit) => match &node.kind {
                    NodeKind::Text(_) if !def.ty.types().is_empty() => {
                        self.coerce(def, lit, node, np)?
                    }
                    _ if def.ty.kinds().intersects(Kinds::STRING) => ActionValue::String(lit),
                    _ => {
                        self.type_error(def, "a string", node.span, np);
                        return None;
                    }
                },
            },
            _ => {
                if !def.ty.admits_node(node) {
                    self.type_error(def, found(node), node.span, np);
                    return None;
                }
                self.untyped(node, np, 1)?
            }
        };
        self.check_fit(def, &value, node.span, np).then_some(value)
    }

    fn type_error(&mut self, def: &ParamDef, found: &str, span: Span, np: Option<&str>) {
        let d = Diagnostic::new(
            Code::ParameterType,
            format!(
                "parameter `{}` of `{}` must be {}, found {found}",
                def.name,
                self.kind,
                def.ty.phrase()
            ),
        )
        .at(span)
        .label(format!("expected {}", def.ty.phrase()));
        self.push(d, np);
    }

    /// An XML text literal read as the declared type: the first of its
    /// types (in the order written) that reads it.
    fn coerce(
        &mut self,
        def: &ParamDef,
        lit: String,
        node: &Node,
        np: Option<&str>,
    ) -> Option<ActionValue> {
        let text = lit.trim();
        let read = |ty: &ParamType| match ty {
            ParamType::String => Some(ActionValue::String(lit.clone())),
            // An integral `2.0` is an integer too, and stays a double.
            ParamType::Integer => text.parse::<i64>().ok().map(ActionValue::Int).or_else(|| {
                text.parse::<f64>()
                    .ok()
                    .filter(|f| is_integral(*f))
                    .map(ActionValue::Double)
            }),
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
            ParamType::Null => (text == "null").then_some(ActionValue::Null),
            ParamType::Object | ParamType::Array => None,
        };
        if let Some(value) = def.ty.types().iter().find_map(read) {
            return Some(value);
        }
        let help = match def.ty.single() {
            Some(ParamType::Boolean) => Some("write `true` or `false`".to_owned()),
            Some(ParamType::Object) => {
                Some("write its entries as `<param name=\"key\">value</param>` children".to_owned())
            }
            Some(ParamType::Array) => Some(
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
                def.ty.phrase()
            ),
        )
        .at(node.span)
        .label(format!("expected {}", def.ty.phrase()))
        .maybe_help(help);
        self.push(d, np);
        None
    }

    /// Checks a value given for a parameter against its definition: the
    /// `enum`, the items of a list (literal items and templates alike).
    fn check_fit(
        &mut self,
        def: &ParamDef,
        value: &ActionValue,
        span: Span,
        np: Option<&str>,
    ) -> bool {
        let Some(m) = def.ty.misfit(value) else {
            return self.item_templates(def, &def.ty, value, String::new(), span, np);
        };
        let (kind, name) = (self.kind, def.name.as_str());
        if !m.at.is_empty() {
            let d = if m.enum_only {
                Diagnostic::new(
                    Code::ParameterEnum,
                    format!(
                        "item {} of parameter `{name}` of `{kind}` does not allow `{}`",
                        m.at,
                        render(m.value)
                    ),
                )
                .label("not one of its values")
                .help(format!(
                    "expected one of {}",
                    list(m.def.allowed().unwrap_or_default())
                ))
            } else {
                Diagnostic::new(
                    Code::ParameterType,
                    format!(
                        "item {} of parameter `{name}` of `{kind}` must be {}, found {}",
                        m.at,
                        m.def.phrase(),
                        value_phrase(m.value)
                    ),
                )
                .label(format!("expected {}", m.def.phrase()))
            };
            self.push(d.at(span), np);
            return false;
        }
        if !m.enum_only {
            self.type_error(def, value_phrase(value), span, np);
            return false;
        }
        let allowed = def.ty.allowed().unwrap_or_default();
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
        self.check_refs(&t, np);
        self.template_fit(&def.ty, &def.name, &t, text, None, span, np)
            .then_some(ActionValue::Template(t))
    }

    /// The schema type of a whole template's path or the type of its
    /// expression (`None` for a template with text, or a path that does not
    /// resolve).
    fn whole_type(&mut self, t: &Template) -> Option<Type> {
        if let Some(e) = t.whole_expr() {
            // Its findings were reported by `check_refs`.
            let mut quiet = Diagnostics::new();
            let ty = crate::check::typeck::check_value(
                &e.expr,
                self.schema,
                self.paths,
                &mut self.regexes,
                &mut quiet,
            );
            return Some(ty);
        }
        let path = self.paths.get(t.whole_path()?)?;
        self.schema.resolve(path).ok().map(|r| r.ty)
    }

    /// The templates among the items of a list given for a parameter (at
    /// any depth of `items`), each held to its `items` definition.
    #[allow(clippy::too_many_arguments)]
    fn item_templates(
        &mut self,
        def: &ParamDef,
        ty: &TypeDef,
        value: &ActionValue,
        at: String,
        span: Span,
        np: Option<&str>,
    ) -> bool {
        let (Some(items), ActionValue::List(values)) = (ty.items(), value) else {
            return true;
        };
        let mut ok = true;
        for (i, item) in values.iter().enumerate() {
            let at = format!("{at}[{i}]");
            ok &= match item {
                ActionValue::Template(t) => {
                    let text = t.source_text(self.paths);
                    // Where its (first) reference is written.
                    let span = t.refs().next().map_or(span, |(_, s)| s);
                    self.template_fit(items, &def.name, t, &text, Some(&at), span, np)
                }
                ActionValue::List(_) => self.item_templates(def, items, item, at, span, np),
                _ => true,
            };
        }
        ok
    }

    /// Whether a template can fit a type definition (see [`check_action`]):
    /// the parameter's own (`at` is `None`: E0403, E0404) or that of items
    /// at `at` inside it (E0202). Reports why not.
    #[allow(clippy::too_many_arguments)]
    fn template_fit(
        &mut self,
        ty: &TypeDef,
        name: &str,
        t: &Template,
        text: &str,
        at: Option<&str>,
        span: Span,
        np: Option<&str>,
    ) -> bool {
        let kind = self.kind;
        let (what, type_code, enum_code) = match at {
            None => (
                format!("parameter `{name}` of `{kind}`"),
                Code::ParameterType,
                Code::ParameterEnum,
            ),
            Some(at) => (
                format!("item {at} of parameter `{name}` of `{kind}`"),
                Code::TemplateType,
                Code::TemplateType,
            ),
        };
        match self.whole_type(t).filter(|_| t.is_whole()) {
            Some(path_ty) => {
                if !ty.types().is_empty()
                    && !path_ty.kinds.is_empty()
                    && !path_ty.kinds.intersects(ty.kinds())
                {
                    let d = Diagnostic::new(
                        type_code,
                        format!(
                            "`{text}` is {} but {what} must be {}",
                            kinds_phrase(path_ty.kinds),
                            ty.phrase()
                        ),
                    )
                    .at(span)
                    .label(format!("expected {}", ty.phrase()));
                    self.push(d, np);
                    return false;
                }
                if let Some((depth, found, expected)) = self.items_misfit(ty, &path_ty) {
                    let d = Diagnostic::new(
                        Code::TemplateType,
                        format!(
                            "`{text}` is an array whose items{depth} are {} but the items{depth} of {what} must be {}",
                            kinds_phrase(found),
                            expected.phrase()
                        ),
                    )
                    .at(span)
                    .label("the schema's items never fit")
                    .help("declare the parameter's `items` to fit the path's schema, or use another path");
                    self.push(d, np);
                    return false;
                }
                if let (Some(allowed), Some(schema_enum)) =
                    (ty.allowed(), self.schema.allowed(path_ty.schema))
                {
                    let values: Vec<ActionValue> = schema_enum
                        .iter()
                        .map(ActionValue::from_json)
                        .filter(|v| *v != ActionValue::Null)
                        .collect();
                    // Values outside the enum are a run-time error; only a
                    // schema whose values all are is an error here.
                    if !values.is_empty() && values.iter().all(|v| ty.misfit(v).is_some()) {
                        let d = Diagnostic::new(
                            enum_code,
                            format!(
                                "`{text}` may be {}, which {what} does not allow",
                                list(&values)
                            ),
                        )
                        .at(span)
                        .label("the schema allows other values")
                        .help(format!("expected one of {}", list(allowed)));
                        self.push(d, np);
                        return false;
                    }
                }
            }
            None if t.is_whole() => {}
            None => {
                if !ty.types().is_empty() && !ty.kinds().intersects(Kinds::STRING) {
                    let d = Diagnostic::new(
                        type_code,
                        format!("`{text}` is a string but {what} must be {}", ty.phrase()),
                    )
                    .at(span)
                    .label(format!("expected {}", ty.phrase()))
                    .help("only a template that is exactly one `${path}` keeps the value's type");
                    self.push(d, np);
                    return false;
                }
                if let Some(allowed) = ty.allowed() {
                    let d = Diagnostic::new(
                        enum_code,
                        format!("{what} does not allow the interpolated string `{text}`"),
                    )
                    .at(span)
                    .label("not one of its values")
                    .help(format!(
                        "write one of {}, or a template that is exactly one `${{path}}`",
                        list(allowed)
                    ));
                    self.push(d, np);
                    return false;
                }
            }
        }
        true
    }

    /// Where the items of a path's schema can never fit the items of a type
    /// definition (at any depth both declare): the depth (`""`, ` of items`,
    /// ...), the schema's kinds there and the definition there.
    fn items_misfit<'d>(
        &self,
        ty: &'d TypeDef,
        path_ty: &Type,
    ) -> Option<(String, Kinds, &'d TypeDef)> {
        let mut def = ty;
        let mut node = self.schema.node(path_ty.schema?)?;
        let mut depth = String::new();
        loop {
            let items_def = def.items()?;
            let items_node = self.schema.node(node.items?)?;
            if !items_def.types().is_empty()
                && !items_node.kinds.is_empty()
                && !items_node.kinds.intersects(items_def.kinds())
            {
                return Some((depth, items_node.kinds, items_def));
            }
            def = items_def;
            node = items_node;
            depth.push_str(" of items");
        }
    }

    /// Checks every path of a template against the schema (their types in
    /// order), and type-checks every expression as a condition is.
    fn check_refs(&mut self, t: &Template, np: Option<&str>) -> Vec<Type> {
        for (e, _) in t.exprs() {
            let mut found = Diagnostics::new();
            crate::check::typeck::check_value(
                &e.expr,
                self.schema,
                self.paths,
                &mut self.regexes,
                &mut found,
            );
            for d in found.into_vec() {
                self.push(d, np);
            }
        }
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
        match template::parse(text, origin, self.paths, self.locals) {
            Ok(parsed) => {
                self.bare_braces(text, origin, np);
                Some(parsed)
            }
            Err(d) => {
                self.push(d, np);
                None
            }
        }
    }

    /// W0010: `{name}` text where the template `${name}` was likely meant
    /// ([`template::bare_braces`]): when the schema has the path, or may
    /// have it (it leaves no closed object). One warning per name and file.
    fn bare_braces(&mut self, text: &str, origin: Origin, np: Option<&str>) {
        for (start, end, name) in template::bare_braces(text) {
            let mut steps = name.split('.');
            let root = steps.next().unwrap_or_default();
            let path = steps.fold(Path::root(root), |p, f| {
                p.child(Segment::Field(f.to_owned()))
            });
            let may_have = match self.schema.resolve(&path) {
                Ok(resolved) => resolved.outside.is_none_or(|out| !out.closed),
                Err(_) => false,
            };
            if !may_have {
                continue;
            }
            let d = Diagnostic::new(
                Code::BracesWithoutDollar,
                format!(
                    "`{{{name}}}` in a parameter of `{}` is literal text, not a template",
                    self.kind
                ),
            )
            .at(origin.span(start, end))
            .label("stays as written")
            .help(format!(
                "to insert the context value at `{name}`, write `${{{name}}}`"
            ))
            .once_per_file(name.to_owned());
            self.push(d, np);
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
                ActionValue::List(all_or_none(items.iter().enumerate().map(|(i, item)| {
                    let inp = np.map(|p| format!("{p}[{i}]"));
                    self.untyped(item, inp.as_deref(), depth + 1)
                }))?)
            }
            NodeKind::Map(entries) => {
                ActionValue::Object(all_or_none(entries.iter().map(|(k, v)| {
                    self.untyped(v, child(np, &k.name).as_deref(), depth + 1)
                        .map(|v| (k.name.clone(), v))
                }))?)
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
