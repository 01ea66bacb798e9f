//! Checks of the action table, the decision model and the layers: each
//! action's type and parameters, its checks and filled values, its
//! templates' code.

use super::*;

pub(super) fn check_actions(p: &Program) -> Result<(), VerifyError> {
    let mut stack: Vec<(&ParamValue, usize)> = Vec::new();
    // Reused for every action and object: no allocation per action.
    let mut names = Names::default();
    for (a, action) in p.actions.iter().enumerate() {
        let at = || Location::Action(index_u32(a));
        let string = |i: StrIdx| -> Result<&str, VerifyError> {
            in_bounds(p, i, at)?;
            Ok(p.string(i))
        };
        string(action.kind)?;
        names.clear();
        for param in &action.params {
            let name = string(param.name)?;
            if !names.insert(name) {
                return Err(VerifyError::Duplicate {
                    at: at(),
                    what: "parameter",
                    name: name.to_owned(),
                });
            }
            stack.push((&param.value, 1));
        }
        while let Some((value, depth)) = stack.pop() {
            if depth > MAX_VALUE_DEPTH {
                return Err(VerifyError::TooDeep {
                    at: at(),
                    limit: MAX_VALUE_DEPTH,
                });
            }
            match value {
                ParamValue::Const(k) => in_bounds(p, *k, at)?,
                ParamValue::Template(parts) => {
                    for part in parts {
                        match part {
                            TemplatePart::Lit(s) => in_bounds(p, *s, at)?,
                            TemplatePart::Path(q) => in_bounds(p, *q, at)?,
                            TemplatePart::Expr { code, max_stack } => {
                                check_template_code(p, index_u32(a), *code, *max_stack)?;
                            }
                        }
                    }
                }
                ParamValue::List(items) => {
                    stack.extend(items.iter().map(|item| (item, depth + 1)));
                }
                ParamValue::Object(entries) => {
                    names.clear();
                    for (key, item) in entries {
                        let key = string(*key)?;
                        if !names.insert(key) {
                            return Err(VerifyError::Duplicate {
                                at: at(),
                                what: "object key",
                                name: key.to_owned(),
                            });
                        }
                        stack.push((item, depth + 1));
                    }
                }
            }
        }
        // Indexes are known good now: the checks.
        for param in &action.params {
            if let Some(c) = &param.check {
                let name = p.string(param.name);
                check_check(p, c, name, at)?;
                check_value_fits(p, &param.value, c, name, String::new(), at)?;
            }
        }
    }
    Ok(())
}

/// The decision model against the actions
/// (`docs/src/semantics.md#action-effects`): bindings are paths of the table
/// and only on awaited actions; the error policy's action is an action of
/// the table and terminal.
pub(super) fn check_model(p: &Program) -> Result<(), VerifyError> {
    for (a, action) in p.actions.iter().enumerate() {
        let at = || Location::Action(index_u32(a));
        if let Some(bind) = action.bind {
            match bind {
                Binding::Path(path) => in_bounds(p, path, at)?,
                Binding::Parameter(name) => {
                    in_bounds(p, name, at)?;
                    if !action.params.iter().any(|q| q.name == name) {
                        return Err(VerifyError::BadModel {
                            at: at(),
                            reason: "binds at a parameter it does not have",
                        });
                    }
                }
            }
            if action.effect != Effect::Await {
                return Err(VerifyError::BadModel {
                    at: at(),
                    reason: "binds a result but is not an awaited action",
                });
            }
        }
    }
    if let OnError::Action(a) = p.model.on_error {
        let at = || Location::Program;
        in_bounds(p, a, at)?;
        if p.action(a).map(|e| e.effect) != Some(Effect::Terminal) {
            return Err(VerifyError::BadModel {
                at: Location::Action(a.as_u32()),
                reason: "is the error policy's action but not terminal",
            });
        }
    }
    Ok(())
}

/// The names of one list seen so far (an action's parameters, an object's
/// keys), for finding the first repeated one. A few names are compared with
/// each other, which is faster than hashing them and needs no allocation
/// once the buffer has grown; past [`Names::FEW`] they move to a hash set,
/// so that a long list stays linear.
#[derive(Default)]
pub(super) struct Names<'a> {
    few: Vec<&'a str>,
    many: HashSet<&'a str>,
}

impl<'a> Names<'a> {
    const FEW: usize = 8;

    /// Forgets every name (keeping the buffers).
    pub(super) fn clear(&mut self) {
        self.few.clear();
        self.many.clear();
    }

    /// Adds `name`; `false` if it was added before.
    pub(super) fn insert(&mut self, name: &'a str) -> bool {
        if self.few.len() < Self::FEW {
            if self.few.contains(&name) {
                return false;
            }
            self.few.push(name);
            return true;
        }
        if self.many.is_empty() {
            self.many.extend(self.few.iter().copied());
        }
        self.many.insert(name)
    }
}

/// A check's own structure: kinds known and not empty, the enum a list
/// constant, items nested at most [`MAX_VALUE_DEPTH`].
pub(super) fn check_check(
    p: &Program,
    c: &ValueCheck,
    param: &str,
    at: impl Fn() -> Location,
) -> Result<(), VerifyError> {
    let bad = |reason| VerifyError::BadCheck {
        at: at(),
        param: param.to_owned(),
        reason,
    };
    if c.depth() > MAX_VALUE_DEPTH {
        return Err(bad("nests its items too deeply"));
    }
    let mut cur = Some(c);
    while let Some(c) = cur {
        if c.kinds.is_empty() || Kinds::from_bits(c.kinds.bits()) != c.kinds {
            return Err(bad("allows no kind of value"));
        }
        if let Some(k) = c.allowed {
            in_bounds(p, k, &at)?;
            if !matches!(p.konst(k), Some(serde_json::Value::Array(_))) {
                return Err(bad("has an enum that is not a list constant"));
            }
        }
        cur = c.items.as_deref();
    }
    Ok(())
}

/// Whether a parameter value (at position `pos` inside the parameter) can
/// pass its check: a constant passes it, a list or object is of an allowed
/// kind (and a list's items can pass the items' check), a template with
/// text around its references is a string. A whole template can be
/// anything: the VM checks it. Recursion follows the check's items, whose
/// depth [`check_check`] bounded.
pub(super) fn check_value_fits(
    p: &Program,
    value: &ParamValue,
    c: &ValueCheck,
    param: &str,
    pos: String,
    at: impl Fn() -> Location + Copy,
) -> Result<(), VerifyError> {
    let fails = |pos: &str, value: &str, expected: String| VerifyError::CheckFails {
        at: at(),
        problem: format!("parameter `{param}{pos}` is {value}, not {expected}"),
    };
    match value {
        ParamValue::Const(k) => {
            let konst = p.konst(*k).unwrap_or(&serde_json::Value::Null);
            if let Some(v) = check::violation(p, c, konst) {
                return Err(fails(
                    &format!("{pos}{}", v.at),
                    &check::shown(v.value),
                    check::expected(p, v.check),
                ));
            }
        }
        ParamValue::Template(parts) => {
            if !matches!(
                parts.as_slice(),
                [TemplatePart::Path(_) | TemplatePart::Expr { .. }]
            ) && !c.kinds.intersects(Kinds::STRING)
            {
                return Err(fails(&pos, "a string", check::expected(p, c)));
            }
        }
        ParamValue::List(items) => {
            if !c.kinds.intersects(Kinds::LIST) {
                return Err(fails(&pos, "an array", check::expected(p, c)));
            }
            if let Some(item_check) = &c.items {
                for (i, item) in items.iter().enumerate() {
                    check_value_fits(p, item, item_check, param, format!("{pos}[{i}]"), at)?;
                }
            }
        }
        ParamValue::Object(_) => {
            if !c.kinds.intersects(Kinds::OBJECT) {
                return Err(fails(&pos, "an object", check::expected(p, c)));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// 6: hooks and their code.

pub(super) fn check_layers(p: &Program) -> Result<(), VerifyError> {
    let mut seen = std::collections::HashSet::with_capacity(p.layers.len());
    for (i, &name) in p.layers.iter().enumerate() {
        in_bounds(p, name, || Location::Program)?;
        if !seen.insert(p.string(name)) {
            return Err(VerifyError::Duplicate {
                at: Location::Program,
                what: "layer",
                name: format!("{} (layer {i})", p.string(name)),
            });
        }
    }
    Ok(())
}

/// The code of a template expression of action `action`: a non-empty range
/// inside the code, checked as a hook's code is (it ends in `Return`, jumps
/// forward, keeps the stack discipline) and needing at most its declared
/// `max_stack`, itself within [`MAX_STACK_DEPTH`]. It may lie anywhere in
/// the code (the lowering writes it after its hook's condition).
pub(super) fn check_template_code(
    p: &Program,
    action: u32,
    (start, end): (u32, u32),
    max_stack: u32,
) -> Result<(), VerifyError> {
    let at = || Location::Action(action);
    let bad_range = |reason| VerifyError::BadCodeRange {
        at: at(),
        start,
        end,
        reason,
    };
    if start >= end {
        return Err(bad_range(
            "is empty or reversed (a template expression has code)",
        ));
    }
    if end as usize > p.code.len() {
        return Err(bad_range("runs past the end of the code"));
    }
    if max_stack as usize > MAX_STACK_DEPTH {
        return Err(VerifyError::MaxStack {
            at: at(),
            declared: max_stack,
            reason: "the limit is",
            needed: MAX_STACK_DEPTH as u64,
        });
    }
    let needed = code::check_code(
        p,
        code::Owner::Template(action),
        (start, end),
        &mut Vec::new(),
    )?;
    if needed > max_stack {
        return Err(VerifyError::MaxStack {
            at: at(),
            declared: max_stack,
            reason: "its code needs",
            needed: u64::from(needed),
        });
    }
    Ok(())
}
