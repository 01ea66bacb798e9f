//! Reading action type definitions (a file's `action_types` section, and the
//! built-in ones): every key checked, defaults and `enum` values read as fixed
//! values, and each definition merged over the types already known.

use super::{all_or_none, found, list, render, value_phrase};
use super::{
    ActionType, ActionTypes, ActionValue, ParamDef, ParamType, Performer, TypeBinding, TypeDef,
    ITEM_KEYS, PARAM_KEYS, TYPE_KEYS,
};
use crate::check::template;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::{child_path, Key, Node, NodeKind};
use crate::span::Span;
use crate::suggest;
use hookc_runtime::bytecode::{Effect, Spelled};

impl ActionTypes {
    /// Reads one file's `action_types` mapping and merges it over what is
    /// there: a type with a built-in's name replaces the built-in. A type that
    /// another file already declared differently is
    /// [`Code::DuplicateDefinition`] (the first declaration stays); the same
    /// definition again is accepted. Invalid definitions are reported
    /// ([`Code::ActionTypeDef`]) and kept without their bad parts, so that
    /// actions using them are still checked.
    pub fn declare(&mut self, node: &Node, diags: &mut Diagnostics) {
        let Some(entries) = node.as_map() else {
            diags.push(
                Diagnostic::new(
                    Code::ActionTypeDef,
                    format!(
                        "`action_types` must be a mapping from action type names to definitions, found {}",
                        found(node)
                    ),
                )
                .at(node.span)
                .node("action_types"),
            );
            return;
        };
        for (key, def) in entries {
            let mut ty = read_type(key, def, diags);
            ty.source = Some(def.to_json());
            match self.types.iter().position(|t| t.name == key.name) {
                None => {
                    self.declared.push(self.types.len());
                    self.types.push(ty);
                }
                Some(i) => {
                    let Some(slot) = self.types.get_mut(i) else {
                        continue;
                    };
                    match &slot.source {
                        None => {
                            *slot = ty;
                            self.declared.push(i);
                        }
                        Some(prev) if Some(prev) == ty.source.as_ref() => {}
                        Some(_) => diags.push(
                            Diagnostic::new(
                                Code::DuplicateDefinition,
                                format!("action type `{}` is defined twice", key.name),
                            )
                            .at(key.span)
                            .node(child_path("action_types", &key.name))
                            .label("defined again here")
                            .help("declare each action type in one file only; the first definition is used")),
                    }
                }
            }
        }
    }
}

/// Reads one action type definition, `{description, parameters}`.
pub(super) fn read_type(key: &Key, def: &Node, diags: &mut Diagnostics) -> ActionType {
    let name = key.name.as_str();
    let np = child_path("action_types", name);
    let mut out = ActionType {
        name: name.to_owned(),
        description: None,
        effect: Effect::default(),
        severity: 0,
        bind: None,
        performer: Performer::Host,
        params: Vec::new(),
        source: None,
    };
    let bad = |msg: String, span: Span, np: &str| {
        Diagnostic::new(Code::ActionTypeDef, msg).at(span).node(np)
    };
    if name.is_empty() {
        diags.push(bad(
            "an action type needs a non-empty name".into(),
            key.span,
            &np,
        ));
    }
    let Some(entries) = def.as_map() else {
        diags.push(bad(
            format!(
                "action type `{name}` must be a mapping with `description` and `parameters`, found {}",
                found(def)
            ),
            def.span,
            &np,
        ));
        return out;
    };
    for (k, v) in entries {
        match k.name.as_str() {
            "description" => match v.as_str() {
                Some(s) => out.description = Some(s.to_owned()),
                None => diags.push(bad(
                    format!("`description` of action type `{name}` must be a string, found {}", found(v)),
                    v.span,
                    &child_path(&np, "description"),
                )),
            },
            "effect" => match v.as_str().map(|s| (s, Effect::from_name(s))) {
                Some((_, Some(effect))) => out.effect = effect,
                Some((s, None)) => diags.push(
                    bad(
                        format!("`effect` of action type `{name}` must be one of `{}`, found `{s}`", Effect::names().collect::<Vec<_>>().join("`, `")),
                        v.span,
                        &child_path(&np, "effect"),
                    )
                    .maybe_help(suggest::help_for(s, Effect::names())),
                ),
                None => diags.push(bad(
                    format!("`effect` of action type `{name}` must be one of `{}`, found {}", Effect::names().collect::<Vec<_>>().join("`, `"), found(v)),
                    v.span,
                    &child_path(&np, "effect"),
                )),
            },
            "severity" => match &v.kind {
                NodeKind::Int(n) => out.severity = *n,
                _ => diags.push(bad(
                    format!("`severity` of action type `{name}` must be an integer, found {}", found(v)),
                    v.span,
                    &child_path(&np, "severity"),
                )),
            },
            "bind" => {
                let parameter = match v.as_map() {
                    Some([(k, p)]) if k.name == "parameter" => p.as_str(),
                    _ => None,
                };
                let binding = match (v.as_str().and_then(field_path), parameter) {
                    (Some(path), _) => Some(TypeBinding::Path(path)),
                    (None, Some(p)) => Some(TypeBinding::Parameter(p.to_owned())),
                    (None, None) => None,
                };
                match binding {
                    Some(b) => out.bind = Some(b),
                    None => diags.push(
                        bad(
                            format!("`bind` of action type `{name}` must be a path of fields such as `git.branch`, or `{{parameter: NAME}}`, found {}", found(v)),
                            v.span,
                            &child_path(&np, "bind"),
                        )
                        .help("an awaited action's result is bound at this context path, or at the key its parameter NAME holds; without `bind`, at `results.<hook id>`"),
                    ),
                }
            }
            "performed_by" => match v.as_str() {
                Some("host") => out.performer = Performer::Host,
                Some("hookc") => out.performer = Performer::Hookc,
                other => diags.push(bad(
                    format!(
                        "`performed_by` of action type `{name}` must be `host` or `hookc`, found {}",
                        other.map_or_else(|| found(v).to_string(), |s| format!("`{s}`"))
                    ),
                    v.span,
                    &child_path(&np, "performed_by"),
                )),
            },
            "parameters" => match &v.kind {
                NodeKind::Map(params) => {
                    let pnp = child_path(&np, "parameters");
                    for (pk, pv) in params {
                        if out.params.iter().any(|p| p.name == pk.name) {
                            // A repeated YAML key: the front end reports it.
                            continue;
                        }
                        if let Some(p) = read_param(name, pk, pv, &pnp, diags) {
                            out.params.push(p);
                        }
                    }
                }
                NodeKind::Null => {}
                _ => diags.push(bad(
                    format!(
                        "`parameters` of action type `{name}` must be a mapping from parameter names to definitions, found {}",
                        found(v)
                    ),
                    v.span,
                    &child_path(&np, "parameters"),
                )),
            },
            other => diags.push(
                bad(
                    format!("action type `{name}` has unknown key `{other}`"),
                    k.span,
                    &child_path(&np, other),
                )
                .maybe_help(suggest::help_for(other, TYPE_KEYS)),
            ),
        }
    }
    check_effect_needs(&mut out, key, def, &np, diags);
    out
}

/// What an effect asks of its type (`docs/src/semantics.md#action-effects`):
/// a transform declares a `patch` object parameter, only an awaited type
/// binds its result, and severity only ranks terminal actions.
fn check_effect_needs(
    out: &mut ActionType,
    key: &Key,
    def: &Node,
    np: &str,
    diags: &mut Diagnostics,
) {
    let name = out.name.clone();
    let at = |k: &str| {
        def.as_map()
            .and_then(|m| m.iter().find(|(mk, _)| mk.name == k))
            .map_or(key.span, |(mk, _)| mk.span)
    };
    let bad = |msg: String, span: Span, help: &str| {
        Diagnostic::new(Code::ActionTypeDef, msg)
            .at(span)
            .node(np)
            .help(help.to_owned())
    };
    let patch = hookc_runtime::bytecode::PATCH_PARAM;
    if out.effect == Effect::Transform {
        let fits = out
            .param(patch)
            .is_some_and(|p| p.ty().types() == [super::types::ParamType::Object]);
        if !fits {
            diags.push(bad(
                format!("transform action type `{name}` needs a `{patch}` parameter of type `object`: the merge patch it applies to the context"),
                at("effect"),
                "declare `parameters: {patch: {type: object}}`; its value, templates filled, is merged into the context (RFC 7396)",
            ));
        }
        let set = hookc_runtime::bytecode::SET_PARAM;
        let set_fits = out
            .param(set)
            .is_none_or(|p| p.ty().types() == [super::types::ParamType::Object]);
        if !set_fits {
            diags.push(bad(
                format!("transform action type `{name}` declares a `{set}` parameter that is not of type `object`: the members a transform sets after its patch"),
                at("parameters"),
                "declare `set: {type: object}`: its members are set as the patch's are merged, but a `null` member is set to null rather than removed",
            ));
        }
    }
    if let Some(TypeBinding::Parameter(p)) = &out.bind {
        // The result is bound at the key the parameter holds: a parameter
        // that may hold no string would drop it (the evaluation goes on as
        // if no result were given there).
        match out.param(p) {
            None => {
                let msg = format!("action type `{name}` binds its result at the key its parameter `{p}` holds, but it has no parameter `{p}`");
                diags.push(bad(
                    msg,
                    at("bind"),
                    "declare the parameter, or bind at a path",
                ));
            }
            Some(param) if !is_key_type(param.ty().types()) => {
                let kinds: Vec<&str> = param.ty().types().iter().map(|t| t.name()).collect();
                let declared = if kinds.is_empty() {
                    "of any type".to_owned()
                } else {
                    format!("of type `{}`", kinds.join(" | "))
                };
                let msg = format!(
                    "action type `{name}` binds its result at the key its parameter `{p}` holds, \
                     but `{p}` is {declared}: a key is a string, and a result bound at anything \
                     else would be dropped"
                );
                diags.push(bad(
                    msg,
                    at("bind"),
                    "declare the parameter `type: string` (or `type: [string, \"null\"]`, \
                     where `null` binds the result nowhere), or bind at a path",
                ));
            }
            Some(param)
                if param.ty().types() == [ParamType::String]
                    && !param.is_required()
                    && param.default().is_none() =>
            {
                let msg = format!(
                    "action type `{name}` binds its result at the key its parameter `{p}` holds, \
                     but an action may leave `{p}` out: its result would be dropped"
                );
                diags.push(bad(
                    msg,
                    at("bind"),
                    "declare the parameter `required: true`, or give it a `default` \
                     (`type: [string, \"null\"]` says that none binds nowhere)",
                ));
            }
            Some(_) => {}
        }
    }
    if out.bind.is_some() && out.effect != Effect::Await {
        out.bind = None;
        diags.push(bad(
            format!(
                "action type `{name}` binds a result, but only an `effect: await` type has one"
            ),
            at("bind"),
            "remove `bind`, or declare `effect: await`",
        ));
    }
    if out.severity != 0 && out.effect != Effect::Terminal {
        diags.push(bad(
            format!(
                "action type `{name}` has a `severity`, but only terminal actions are ranked by it"
            ),
            at("severity"),
            "remove `severity`, or declare `effect: terminal`",
        ));
    }
}

/// A path of fields written with dots (`git.branch`), each an identifier.
fn field_path(text: &str) -> Option<hookc_runtime::bytecode::Path> {
    let mut parts = text.split('.');
    let root = parts
        .next()
        .filter(|r| hookc_runtime::bytecode::path::is_identifier(r))?;
    let mut path = hookc_runtime::bytecode::Path::root(root);
    for part in parts {
        if !hookc_runtime::bytecode::path::is_identifier(part) {
            return None;
        }
        path = path.child(hookc_runtime::bytecode::Segment::Field(part.to_owned()));
    }
    Some(path)
}

/// Reads one parameter definition, `{type, enum, default, required, optional,
/// description}`; `None` when the parameter cannot exist at all.
fn read_param(
    type_name: &str,
    key: &Key,
    def: &Node,
    np: &str,
    diags: &mut Diagnostics,
) -> Option<ParamDef> {
    let name = key.name.as_str();
    let np = child_path(np, name);
    let bad = |msg: String, span: Span, np: &str| {
        Diagnostic::new(Code::ActionTypeDef, msg).at(span).node(np)
    };
    if name == "type" {
        diags.push(
            bad(
                format!("action type `{type_name}` cannot have a parameter named `type`"),
                key.span,
                &np,
            )
            .help("an action's `type` key names its action type; choose another name"),
        );
        return None;
    }
    if name.is_empty() {
        diags.push(bad(
            format!("action type `{type_name}` has a parameter with an empty name"),
            key.span,
            &np,
        ));
        return None;
    }
    let what = format!("parameter `{name}` of `{type_name}`");
    let mut p = ParamDef {
        name: name.to_owned(),
        ty: TypeDef::default(),
        default: None,
        required: false,
        description: None,
    };
    let Some(entries) = def.as_map() else {
        diags.push(
            bad(
                format!("{what} must be a mapping, found {}", found(def)),
                def.span,
                &np,
            )
            .help("write a definition such as `{type: string, required: true}`"),
        );
        return Some(p);
    };
    let mut type_keys = TypeKeys::default();
    let mut default = None;
    let mut optional = false;
    for (k, v) in entries {
        let knp = child_path(&np, &k.name);
        let flag = |v: &Node, diags: &mut Diagnostics| match v.kind {
            NodeKind::Bool(b) => Some(b),
            _ => {
                diags.push(bad(
                    format!(
                        "`{}` of {what} must be `true` or `false`, found {}",
                        k.name,
                        found(v)
                    ),
                    v.span,
                    &knp,
                ));
                None
            }
        };
        if type_keys.read(&k.name, v, &what, &knp, diags) {
            continue;
        }
        match k.name.as_str() {
            "default" => default = Some((v, knp)),
            "required" => p.required = flag(v, diags).unwrap_or(false),
            "optional" => optional = flag(v, diags).unwrap_or(false),
            "description" => match v.as_str() {
                Some(s) => p.description = Some(s.to_owned()),
                None => diags.push(bad(
                    format!(
                        "`description` of {what} must be a string, found {}",
                        found(v)
                    ),
                    v.span,
                    &knp,
                )),
            },
            other => diags.push(
                bad(format!("{what} has unknown key `{other}`"), k.span, &knp)
                    .maybe_help(suggest::help_for(other, PARAM_KEYS)),
            ),
        }
    }
    if p.required && optional {
        diags.push(bad(
            format!("{what} cannot be both required and optional"),
            def.span,
            &np,
        ));
    }
    p.ty = type_keys.finish(&what, &np, diags);
    if let Some((node, dnp)) = default {
        if let Some(value) = fixed_value(node, &what, &dnp, 0, diags) {
            if p.required {
                diags.push(
                    bad(format!("{what} is required and has a default"), node.span, &dnp)
                        .help("a parameter with a default is never missing: drop `required: true` or the default"),
                );
            } else if let Some(m) = p.ty.misfit(&value) {
                let d = match (m.at.as_str(), m.enum_only) {
                    ("", false) => bad(
                        format!(
                            "default of {what} must be {}, found {}",
                            m.def.phrase(),
                            value_phrase(&value)
                        ),
                        node.span,
                        &dnp,
                    )
                    .label(format!("expected {}", m.def.phrase())),
                    ("", true) => bad(
                        format!(
                            "default `{}` of {what} is not one of its `enum` values",
                            render(&value)
                        ),
                        node.span,
                        &dnp,
                    )
                    .help(format!(
                        "expected one of {}",
                        list(m.def.allowed().unwrap_or_default())
                    )),
                    (at, _) => bad(
                        format!("item {at} of the default of {what} {}", misfit_text(&m)),
                        node.span,
                        &dnp,
                    ),
                };
                diags.push(d);
            } else {
                p.default = Some(value);
            }
        }
    }
    Some(p)
}

/// What a part of a value that does not fit is, and what it should be:
/// `is a string, not an integer`, `is `x`, not one of `a`, `b``.
fn misfit_text(m: &super::Misfit<'_, '_>) -> String {
    if m.enum_only {
        format!(
            "is `{}`, not one of {}",
            render(m.value),
            list(m.def.allowed().unwrap_or_default())
        )
    } else {
        format!("is {}, not {}", value_phrase(m.value), m.def.phrase())
    }
}

/// The `type`, `enum` and `items` keys of a parameter or `items`
/// definition, as read; [`TypeKeys::finish`] makes the [`TypeDef`].
#[derive(Default)]
struct TypeKeys<'n> {
    types: Vec<ParamType>,
    enum_items: Vec<(&'n Node, ActionValue)>,
    items: Option<(&'n Node, TypeDef)>,
}

impl<'n> TypeKeys<'n> {
    /// Reads `key` if it is `type`, `enum` or `items` (then `true`).
    fn read(
        &mut self,
        key: &str,
        v: &'n Node,
        what: &str,
        knp: &str,
        diags: &mut Diagnostics,
    ) -> bool {
        let bad =
            |msg: String, span: Span| Diagnostic::new(Code::ActionTypeDef, msg).at(span).node(knp);
        match key {
            "type" => {
                let names: Vec<&Node> = match &v.kind {
                    NodeKind::Seq(names) if names.is_empty() => {
                        diags.push(
                            bad(format!("`type` of {what} is an empty list"), v.span)
                                .help("list the type names the value may have, as in `[string, \"null\"]`"),
                        );
                        return true;
                    }
                    NodeKind::Seq(names) => names.iter().collect(),
                    _ => vec![v],
                };
                for n in names {
                    match n.as_str() {
                        Some(t) => match ParamType::from_name(t) {
                            Some(ty) if !self.types.contains(&ty) => self.types.push(ty),
                            Some(_) => {}
                            None => diags.push(
                                bad(format!("unknown parameter type `{t}` for {what}"), n.span)
                                    .maybe_help(
                                        suggest::did_you_mean(
                                            t,
                                            ParamType::ALL.map(ParamType::name),
                                        )
                                        .map(|best| format!("did you mean `{best}`?"))
                                        .or_else(|| {
                                            suggest::help_for(
                                                t,
                                                ParamType::value_types().map(ParamType::name),
                                            )
                                        }),
                                    ),
                            ),
                        },
                        None if std::ptr::eq(n, v) => diags.push(bad(
                            format!("`type` of {what} must be a type name, found {}", found(v)),
                            v.span,
                        )),
                        None => diags.push(bad(
                            format!("`type` of {what} must list type names, found {}", found(n)),
                            n.span,
                        )),
                    }
                }
            }
            "enum" => match v.as_seq() {
                Some([]) => diags.push(
                    bad(format!("`enum` of {what} is empty"), v.span)
                        .help("list the values the parameter may take, or drop `enum`"),
                ),
                Some(items) if items.len() > hookc_runtime::limits::MAX_LIST_ITEMS => {
                    if let Some(d) = v.too_large(&format!("the `enum` of {what}")) {
                        diags.push(d.node(knp));
                    }
                }
                Some(items) => {
                    let mut ok = true;
                    for item in items {
                        match fixed_value(item, what, knp, 0, diags) {
                            Some(value) => self.enum_items.push((item, value)),
                            None => ok = false,
                        }
                    }
                    if !ok {
                        self.enum_items.clear();
                    }
                }
                None => diags.push(bad(
                    format!(
                        "`enum` of {what} must be a list of values, found {}",
                        found(v)
                    ),
                    v.span,
                )),
            },
            "items" => {
                let items_what = format!("the items of {what}");
                match v.as_map() {
                    Some(entries) => {
                        let mut keys = TypeKeys::default();
                        for (k, iv) in entries {
                            let inp = child_path(knp, &k.name);
                            if keys.read(&k.name, iv, &items_what, &inp, diags) {
                                continue;
                            }
                            match k.name.as_str() {
                                "description" if iv.as_str().is_some() => {}
                                "description" => diags.push(
                                    Diagnostic::new(
                                        Code::ActionTypeDef,
                                        format!(
                                            "`description` of {items_what} must be a string, found {}",
                                            found(iv)
                                        ),
                                    )
                                    .at(iv.span)
                                    .node(inp),
                                ),
                                other => diags.push(
                                    Diagnostic::new(
                                        Code::ActionTypeDef,
                                        format!("{items_what} has unknown key `{other}`"),
                                    )
                                    .at(k.span)
                                    .node(inp)
                                    .maybe_help(suggest::help_for(other, ITEM_KEYS)),
                                ),
                            }
                        }
                        self.items = Some((v, keys.finish(&items_what, knp, diags)));
                    }
                    None => diags.push(
                        bad(
                            format!(
                                "`items` of {what} must be a type definition (a mapping), found {}",
                                found(v)
                            ),
                            v.span,
                        )
                        .help("write a definition such as `{type: string}`"),
                    ),
                }
            }
            _ => return false,
        }
        true
    }

    /// The definition: `items` only with a type that allows arrays, `enum`
    /// values only when they all fit the rest.
    fn finish(self, what: &str, np: &str, diags: &mut Diagnostics) -> TypeDef {
        let mut def = TypeDef {
            types: self.types,
            allowed: None,
            items: None,
        };
        if let Some((node, items)) = self.items {
            if def.types.is_empty() || def.types.contains(&ParamType::Array) {
                def.items = Some(Box::new(items));
            } else {
                diags.push(
                    Diagnostic::new(
                        Code::ActionTypeDef,
                        format!("{what} has `items` but its `type` does not allow arrays"),
                    )
                    .at(node.span)
                    .node(child_path(np, "items"))
                    .help("add `array` to its `type`, or drop `items`"),
                );
            }
        }
        if self.enum_items.is_empty() {
            return def;
        }
        let mut ok = true;
        for (item, value) in &self.enum_items {
            let Some(m) = def.misfit(value) else {
                continue;
            };
            ok = false;
            let msg = match m.at.as_str() {
                "" => format!(
                    "enum value `{}` of {what} is not {}",
                    render(value),
                    def.phrase()
                ),
                at => format!(
                    "enum value `{}` of {what} does not fit: item {at} {}",
                    render(value),
                    misfit_text(&m)
                ),
            };
            diags.push(
                Diagnostic::new(Code::ActionTypeDef, msg)
                    .at(item.span)
                    .node(child_path(np, "enum")),
            );
        }
        if ok {
            def.allowed = Some(self.enum_items.into_iter().map(|(_, v)| v).collect());
        }
        def
    }
}

/// A value in an action type definition (a default, an enum value): like a
/// parameter value, but without templates.
fn fixed_value(
    node: &Node,
    what: &str,
    np: &str,
    depth: usize,
    diags: &mut Diagnostics,
) -> Option<ActionValue> {
    if depth > hookc_runtime::limits::MAX_DOC_DEPTH {
        diags.push(
            Diagnostic::new(
                Code::TooDeep,
                format!("a value in the definition of {what} is nested too deeply"),
            )
            .at(node.span)
            .node(np),
        );
        return None;
    }
    if depth == 0 {
        if let Some(d) = node.too_large(&format!("the definition of {what}")) {
            diags.push(d.node(np));
            return None;
        }
    }
    Some(match &node.kind {
        NodeKind::Null => ActionValue::Null,
        NodeKind::Bool(b) => ActionValue::Bool(*b),
        NodeKind::Int(i) => ActionValue::Int(*i),
        NodeKind::Float(f) if f.is_finite() => ActionValue::Double(*f),
        NodeKind::Float(f) => {
            diags.push(
                Diagnostic::new(
                    Code::ActionTypeDef,
                    format!("`{f}` in the definition of {what} is not a finite number"),
                )
                .at(node.span)
                .node(np),
            );
            return None;
        }
        NodeKind::Str(s) | NodeKind::Text(s) => match template::literal_text(s) {
            Some(text) => ActionValue::String(text),
            None => {
                diags.push(
                    Diagnostic::new(
                        Code::ActionTypeDef,
                        format!("`{s}` in the definition of {what} holds a `${{...}}` reference"),
                    )
                    .at(node.span)
                    .node(np)
                    .label("defaults and enum values are fixed")
                    .help("write `$${` for a literal `${`"),
                );
                return None;
            }
        },
        NodeKind::Seq(items) => {
            ActionValue::List(all_or_none(items.iter().enumerate().map(|(i, item)| {
                fixed_value(item, what, &format!("{np}[{i}]"), depth + 1, diags)
            }))?)
        }
        NodeKind::Map(entries) => {
            ActionValue::Object(all_or_none(entries.iter().map(|(k, v)| {
                fixed_value(v, what, &child_path(np, &k.name), depth + 1, diags)
                    .map(|v| (k.name.clone(), v))
            }))?)
        }
    })
}

/// Whether a parameter of `types` names a key to bind a result at: a
/// string, or a string or `null` (`null` binds it nowhere).
fn is_key_type(types: &[ParamType]) -> bool {
    types.contains(&ParamType::String)
        && types
            .iter()
            .all(|t| matches!(t, ParamType::String | ParamType::Null))
}
