//! Filling a matched hook's action: its parameters' constants and
//! templates evaluated (a template's code runs on the VM), each filled value
//! checked against its type, built into JSON ([`JsonSink`]) or straight into
//! a host language's values through an [`ActionSink`].

use super::*;

/// A name an action is built with: the action's `type` key, a parameter's
/// name, a key of an object parameter, or the action type itself.
#[derive(Debug, Clone, Copy)]
pub struct Name<'a> {
    of: NameOf<'a>,
}

/// Where a [`Name`] is: read only when asked for (a sink that keeps its
/// objects by [`Name::id`] never needs the text again).
#[derive(Debug, Clone, Copy)]
pub(super) enum NameOf<'a> {
    /// `type`, the key of an action's kind.
    TypeKey(&'a crate::bytecode::Program),
    /// A string of the program's table.
    Table(&'a crate::bytecode::Program, crate::bytecode::StrIdx),
}

impl<'a> Name<'a> {
    /// `type`, the key of an action's kind.
    fn type_key(program: &'a crate::bytecode::Program) -> Name<'a> {
        Name {
            of: NameOf::TypeKey(program),
        }
    }

    /// String `i` of the program's table.
    fn of(program: &'a crate::bytecode::Program, i: crate::bytecode::StrIdx) -> Name<'a> {
        Name {
            of: NameOf::Table(program, i),
        }
    }

    /// The name.
    pub fn text(&self) -> &'a str {
        match self.of {
            NameOf::TypeKey(_) => "type",
            NameOf::Table(program, i) => program.string(i),
        }
    }

    /// The same number for the same name on every evaluation of one
    /// policy, different numbers for different names, and small (at most
    /// the count of the policy's strings): a sink may keep the object it
    /// makes of a name by this number.
    pub fn id(&self) -> usize {
        match self.of {
            // After every string of the table.
            NameOf::TypeKey(program) => program.strings.len(),
            NameOf::Table(_, i) => i.as_usize(),
        }
    }
}

/// What a matched hook's action is built into: `serde_json` values
/// ([`JsonSink`], what [`fill_action`] returns), or a host language's own
/// objects (the Python package builds its dicts directly, instead of
/// converting a `serde_json` map it would then free). The filling
/// ([`fill_action_with`]) is written once, over this interface; a sink only
/// makes values.
///
/// A sink cannot fail here: one whose host can (an exception while
/// building) keeps the first failure for its caller and returns a
/// placeholder value.
pub trait ActionSink {
    /// A value: the filled action, a parameter, an item.
    type Value;
    /// An object being built.
    type Object;
    /// A list being built.
    type List;

    /// A new object of `len` entries.
    fn object(&mut self, len: usize) -> Self::Object;
    /// Adds `key: value` to `object`.
    fn insert(&mut self, object: &mut Self::Object, key: Name<'_>, value: Self::Value);
    /// The finished object as a value.
    fn end_object(&mut self, object: Self::Object) -> Self::Value;
    /// A new list of `len` items.
    fn list(&mut self, len: usize) -> Self::List;
    /// Appends `item` to `list`.
    fn push(&mut self, list: &mut Self::List, item: Self::Value);
    /// The finished list as a value.
    fn end_list(&mut self, list: Self::List) -> Self::Value;
    /// A JSON value as it is: a context value, an expression's value.
    fn json(&mut self, value: Cow<'_, Value>) -> Self::Value;
    /// Constant `id` of the policy, `value`: the same `id` is the same
    /// constant on every evaluation of one policy (and is small: below the
    /// count of its constants), so a sink may keep what it makes of an
    /// immutable one.
    fn constant(&mut self, value: &Value, id: usize) -> Self::Value {
        let _ = id;
        self.json(Cow::Borrowed(value))
    }
    /// A string the filling built (a template with text around its
    /// references).
    fn string(&mut self, text: String) -> Self::Value;
    /// A string of the policy's (the action's type).
    fn name(&mut self, name: Name<'_>) -> Self::Value;
    /// `null`.
    fn null(&mut self) -> Self::Value;
}

/// The [`ActionSink`] of `serde_json` values.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonSink;

impl ActionSink for JsonSink {
    type Value = Value;
    type Object = Map<String, Value>;
    type List = Vec<Value>;

    #[inline]
    fn object(&mut self, len: usize) -> Map<String, Value> {
        // Sized once: growing the map step by step reallocated it on every
        // match.
        Map::with_capacity(len)
    }
    #[inline]
    fn insert(&mut self, object: &mut Map<String, Value>, key: Name<'_>, value: Value) {
        object.insert(key.text().to_owned(), value);
    }
    #[inline]
    fn end_object(&mut self, object: Map<String, Value>) -> Value {
        Value::Object(object)
    }
    #[inline]
    fn list(&mut self, len: usize) -> Vec<Value> {
        Vec::with_capacity(len)
    }
    #[inline]
    fn push(&mut self, list: &mut Vec<Value>, item: Value) {
        list.push(item);
    }
    #[inline]
    fn end_list(&mut self, list: Vec<Value>) -> Value {
        Value::Array(list)
    }
    #[inline]
    fn json(&mut self, value: Cow<'_, Value>) -> Value {
        value.into_owned()
    }
    #[inline]
    fn string(&mut self, text: String) -> Value {
        Value::String(text)
    }
    #[inline]
    fn name(&mut self, name: Name<'_>) -> Value {
        Value::String(name.text().to_owned())
    }
    #[inline]
    fn null(&mut self) -> Value {
        Value::Null
    }
}

/// A matched hook's action as the runtime returns it: `{"type": KIND,
/// ...params}` with every template filled in, each filled parameter that
/// carries a check ([`crate::bytecode::ActionParam::check`]) checked.
///
/// A whole template (`"${path}"`, `"${expr}"`) keeps the value's JSON type
/// and is `null` when the path does not resolve or the expression's value
/// is an error; references inside a longer string are stringified (strings
/// as they are; numbers, bools, `null`, arrays and objects as compact JSON)
/// and are the empty string when they do not resolve or are an error. A
/// filled value that fails its check is an [`ActionError`] naming `hook`
/// (the matched hook's id). A bad action index (impossible for verified
/// programs) gives an empty map.
pub fn fill_action<'a>(
    prog: &'a VerifiedProgram,
    hook: &str,
    action: ActionIdx,
    paths: &mut PathCache<'a>,
) -> Result<Map<String, Value>, ActionError> {
    match fill_action_with(prog, hook, action, paths, &mut JsonSink)? {
        Value::Object(map) => Ok(map),
        // (JsonSink ends every object as one.)
        _ => Ok(Map::new()),
    }
}

/// [`fill_action`], the action built into `sink`'s values (an object).
pub fn fill_action_with<'a, S: ActionSink>(
    prog: &'a VerifiedProgram,
    hook: &str,
    action: ActionIdx,
    paths: &mut PathCache<'a>,
    sink: &mut S,
) -> Result<S::Value, ActionError> {
    let program = prog.program();
    let Some(entry) = program.action(action) else {
        let empty = sink.object(0);
        return Ok(sink.end_object(empty));
    };
    let mut out = sink.object(entry.params.len() + 1);
    let kind = Name::of(program, entry.kind);
    let kind_value = sink.name(kind);
    sink.insert(&mut out, Name::type_key(program), kind_value);
    for param in &entry.params {
        let name = Name::of(program, param.name);
        let value = match &param.check {
            None => fill(prog, &param.value, paths, sink),
            // A checked parameter is filled as JSON, which the check reads,
            // then handed to the sink as it is (only parameters with a
            // template that may not fit carry a check).
            Some(check) => {
                let value = fill(prog, &param.value, paths, &mut JsonSink);
                if let Some(bad) = check::violation(program, check, &value) {
                    return Err(ActionError::new(
                        program,
                        hook,
                        kind.text(),
                        name.text(),
                        &bad,
                    ));
                }
                sink.json(Cow::Owned(value))
            }
        };
        sink.insert(&mut out, name, value);
    }
    Ok(sink.end_object(out))
}

/// The value of a template's expression part: its code run like a hook's
/// condition (an impossible range is an `invalid argument` error value).
pub fn eval_template_expr<'a>(
    prog: &'a VerifiedProgram,
    code: (u32, u32),
    paths: &mut PathCache<'a>,
) -> Val<'a> {
    let (start, end) = (code.0 as usize, code.1 as usize);
    match prog.program().code.get(start..end) {
        Some(ops) if start < end => run::<false>(prog, ops, start, paths, None),
        _ => invalid(),
    }
}

/// A template part's value as JSON, `None` when the path does not resolve
/// or the expression's value is an error (or is not JSON: a non-finite
/// double is `null`, as [`Val::to_json`] has it).
pub(super) fn part_value<'a>(
    prog: &'a VerifiedProgram,
    part: &TemplatePart,
    paths: &mut PathCache<'a>,
) -> Option<Cow<'a, Value>> {
    match part {
        TemplatePart::Lit(_) => None,
        TemplatePart::Path(p) => paths.get(*p).map(Cow::Borrowed),
        TemplatePart::Expr { code, .. } => eval_template_expr(prog, *code, paths)
            .to_json()
            .map(Cow::Owned),
    }
}

/// One parameter value with its templates filled, built into `sink`.
pub(super) fn fill<'a, S: ActionSink>(
    prog: &'a VerifiedProgram,
    value: &ParamValue,
    paths: &mut PathCache<'a>,
    sink: &mut S,
) -> S::Value {
    let program = prog.program();
    match value {
        ParamValue::Const(i) => match program.konst(*i) {
            Some(v) => sink.constant(v, i.as_usize()),
            None => sink.null(),
        },
        ParamValue::Template(parts) => match parts.as_slice() {
            [whole @ (TemplatePart::Path(_) | TemplatePart::Expr { .. })] => {
                match part_value(prog, whole, paths) {
                    Some(v) => sink.json(v),
                    None => sink.null(),
                }
            }
            parts => {
                let mut text = String::new();
                for part in parts {
                    if let TemplatePart::Lit(s) = part {
                        text.push_str(program.string(*s));
                        continue;
                    }
                    match part_value(prog, part, paths).as_deref() {
                        Some(Value::String(s)) => text.push_str(s),
                        Some(other) => text.push_str(&other.to_string()),
                        None => {}
                    }
                }
                sink.string(text)
            }
        },
        ParamValue::List(items) => {
            let mut list = sink.list(items.len());
            for item in items {
                let v = fill(prog, item, paths, sink);
                sink.push(&mut list, v);
            }
            sink.end_list(list)
        }
        ParamValue::Object(entries) => {
            let mut object = sink.object(entries.len());
            for (k, v) in entries {
                let v = fill(prog, v, paths, sink);
                sink.insert(&mut object, Name::of(program, *k), v);
            }
            sink.end_object(object)
        }
    }
}
