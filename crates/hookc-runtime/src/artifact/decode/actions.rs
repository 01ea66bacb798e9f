//! Decoding the action table and the decision model: each action's type,
//! effect, binding and parameters (constants, templates, their value
//! checks).

use super::*;

/// The actions; `with_model` (formats 4 to 6) allows the effects format 3
/// lacks, `exprs` (formats 5 and 6) template expressions.
pub(super) fn read_actions(
    r: &mut ByteReader<'_>,
    with_model: bool,
    exprs: bool,
) -> Result<Vec<ActionEntry>, ArtifactError> {
    let n = r.count("action count", 2)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let kind = r.get("action type")?;
        let offset = r.offset();
        let effect = match r.u8("action effect")? {
            1 => Effect::Terminal,
            2 => Effect::Collected,
            3 if with_model => Effect::Transform,
            4 if with_model => Effect::Await,
            tag => {
                return Err(ArtifactError::BadTag {
                    what: "action effect",
                    tag,
                    offset,
                })
            }
        };
        let count = r.count("action parameter count", 2)?;
        let mut params = Vec::with_capacity(count);
        for _ in 0..count {
            let name = r.get("action parameter name")?;
            let offset = r.offset();
            let (check, value) = match r.u8("parameter value tag")? {
                CHECKED => {
                    let check = read_check(r, 1)?;
                    let offset = r.offset();
                    let tag = r.u8("parameter value tag")?;
                    (Some(check), read_param_body(r, tag, offset, 1, exprs)?)
                }
                tag => (None, read_param_body(r, tag, offset, 1, exprs)?),
            };
            params.push(ActionParam { name, value, check });
        }
        out.push(ActionEntry {
            kind,
            effect,
            severity: 0,
            bind: None,
            params,
        });
    }
    Ok(out)
}

/// The `model` section (format 4): combine, the error policy, and each
/// action's severity and binding, stored into `actions`.
pub(super) fn read_model(
    r: &mut ByteReader<'_>,
    actions: &mut [ActionEntry],
) -> Result<DecisionModel, ArtifactError> {
    let offset = r.offset();
    let combine = match r.u8("combine")? {
        1 => Combine::FirstMatch,
        2 => Combine::Strictest,
        tag => {
            return Err(ArtifactError::BadTag {
                what: "combine",
                tag,
                offset,
            })
        }
    };
    let offset = r.offset();
    let on_error = match r.u8("error policy")? {
        1 => OnError::Skip,
        2 => OnError::Fail,
        3 => OnError::Action(r.get("error policy action")?),
        tag => {
            return Err(ArtifactError::BadTag {
                what: "error policy",
                tag,
                offset,
            })
        }
    };
    let offset = r.offset();
    let n = r.count("model action count", 2)?;
    if n != actions.len() {
        return Err(ArtifactError::Invalid {
            what: "model action count",
            reason: "not the number of actions",
            offset,
        });
    }
    for action in actions.iter_mut() {
        action.severity = r.sleb("action severity")?;
        let offset = r.offset();
        action.bind = match r.u8("action binding")? {
            0 => None,
            1 => Some(Binding::Path(r.get("action binding path")?)),
            2 => Some(Binding::Parameter(r.get("action binding parameter")?)),
            tag => {
                return Err(ArtifactError::BadTag {
                    what: "action binding",
                    tag,
                    offset,
                })
            }
        };
    }
    Ok(DecisionModel { combine, on_error })
}

/// The tag of a parameter with a check: the check, then the value.
pub(super) const CHECKED: u8 = 5;

/// A parameter's check at nesting `depth` (1 = the parameter's own):
/// kinds (one byte, known bits only, not empty), the enum (byte 0 none, or
/// 1 + `uleb` constant), the items' check (byte 0 none, or 1 + a check).
pub(super) fn read_check(
    r: &mut ByteReader<'_>,
    depth: usize,
) -> Result<ValueCheck, ArtifactError> {
    let offset = r.offset();
    if depth > MAX_VALUE_DEPTH {
        return Err(ArtifactError::TooDeep {
            what: "parameter check",
            limit: MAX_VALUE_DEPTH,
            offset,
        });
    }
    let bits = r.u8("parameter check kinds")?;
    let kinds = Kinds::from_bits(bits);
    if kinds.bits() != bits || kinds.is_empty() {
        return Err(ArtifactError::BadTag {
            what: "parameter check kinds",
            tag: bits,
            offset,
        });
    }
    let allowed = match flag(r, "parameter check enum flag")? {
        true => Some(r.get("parameter check enum")?),
        false => None,
    };
    let items = match flag(r, "parameter check items flag")? {
        true => Some(Box::new(read_check(r, depth + 1)?)),
        false => None,
    };
    Ok(ValueCheck {
        kinds,
        allowed,
        items,
    })
}

/// A byte that is 0 (`false`) or 1 (`true`).
pub(super) fn flag(r: &mut ByteReader<'_>, what: &'static str) -> Result<bool, ArtifactError> {
    let offset = r.offset();
    match r.u8(what)? {
        0 => Ok(false),
        1 => Ok(true),
        tag => Err(ArtifactError::BadTag { what, tag, offset }),
    }
}

/// One parameter value at nesting `depth` (1 = a parameter itself);
/// `exprs`: template expressions are allowed (formats 5 and 6).
pub(super) fn read_param(
    r: &mut ByteReader<'_>,
    depth: usize,
    exprs: bool,
) -> Result<ParamValue, ArtifactError> {
    let offset = r.offset();
    let tag = r.u8("parameter value tag")?;
    read_param_body(r, tag, offset, depth, exprs)
}

/// A parameter value whose tag (at `offset`) was read.
pub(super) fn read_param_body(
    r: &mut ByteReader<'_>,
    tag: u8,
    offset: u64,
    depth: usize,
    exprs: bool,
) -> Result<ParamValue, ArtifactError> {
    if depth > MAX_VALUE_DEPTH {
        return Err(ArtifactError::TooDeep {
            what: "parameter value",
            limit: MAX_VALUE_DEPTH,
            offset,
        });
    }
    Ok(match tag {
        1 => ParamValue::Const(r.get("parameter constant")?),
        2 => {
            let n = r.count("template part count", 2)?;
            let mut parts = Vec::with_capacity(n);
            for _ in 0..n {
                let offset = r.offset();
                parts.push(match r.u8("template part tag")? {
                    1 => TemplatePart::Lit(r.get("template text")?),
                    2 => TemplatePart::Path(r.get("template path")?),
                    3 if exprs => TemplatePart::Expr {
                        code: (
                            r.u32("template expression code start")?,
                            r.u32("template expression code end")?,
                        ),
                        max_stack: r.u32("template expression max stack")?,
                    },
                    tag => {
                        return Err(ArtifactError::BadTag {
                            what: "template part",
                            tag,
                            offset,
                        })
                    }
                });
            }
            ParamValue::Template(parts)
        }
        3 => {
            let n = r.count("parameter list length", 1)?;
            let mut items = Vec::new(); // as for constant lists
            for _ in 0..n {
                items.push(read_param(r, depth + 1, exprs)?);
            }
            ParamValue::List(items)
        }
        4 => {
            let n = r.count("parameter object size", 2)?;
            let mut entries = Vec::new(); // as for constant lists
            for _ in 0..n {
                let key = r.get("parameter object key")?;
                entries.push((key, read_param(r, depth + 1, exprs)?));
            }
            ParamValue::Object(entries)
        }
        tag => {
            return Err(ArtifactError::BadTag {
                what: "parameter value",
                tag,
                offset,
            })
        }
    })
}
