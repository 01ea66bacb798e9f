//! Checks of the hooks (code ranges, ids, events) and of the debug
//! information.

use super::*;

pub(super) fn check_hooks(p: &Program) -> Result<(), VerifyError> {
    let mut scratch = Vec::new();
    let mut prev_end: u32 = 0;
    let mut prev_key: Option<(i64, u32)> = None;
    for (h, entry) in p.hooks.iter().enumerate() {
        let hook = index_u32(h);
        let at = || hook_loc(p, hook);
        in_bounds(p, entry.id, at)?;
        in_range(entry.layer, p.layers.len(), "layer", at)?;
        // INVARIANT (evaluation order): the runtime tries hooks in index
        // order, which must be priority in the program's direction, then
        // layer descending.
        let key = (entry.priority, entry.layer);
        let out_of_order = prev_key.is_some_and(|(prev_priority, prev_layer)| {
            let priority = match p.priority_order {
                PriorityOrder::HigherFirst => prev_priority.cmp(&entry.priority).reverse(),
                PriorityOrder::LowerFirst => prev_priority.cmp(&entry.priority),
            };
            priority.then(entry.layer.cmp(&prev_layer)).is_gt()
        });
        if out_of_order {
            return Err(VerifyError::OutOfOrder { at: at() });
        }
        prev_key = Some(key);
        if let Some(d) = entry.description {
            in_bounds(p, d, at)?;
        }
        in_bounds(p, entry.action, at)?;
        let (start, end) = entry.code;
        let bad_range = |reason| VerifyError::BadCodeRange {
            at: at(),
            start,
            end,
            reason,
        };
        if start > end {
            return Err(bad_range("is reversed"));
        }
        if end as usize > p.code.len() {
            return Err(bad_range("runs past the end of the code"));
        }
        if start < prev_end {
            return Err(bad_range(
                "overlaps or precedes the previous hook's code (ranges must be in hook order)",
            ));
        }
        prev_end = end;
        if entry.max_stack as usize > MAX_STACK_DEPTH {
            return Err(VerifyError::MaxStack {
                at: at(),
                declared: entry.max_stack,
                reason: "the limit is",
                needed: MAX_STACK_DEPTH as u64,
            });
        }
        let needed = code::check_code(p, code::Owner::Hook(hook), entry.code, &mut scratch)?;
        if needed > entry.max_stack {
            return Err(VerifyError::MaxStack {
                at: at(),
                declared: entry.max_stack,
                reason: "its code needs",
                needed: u64::from(needed),
            });
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// 7: ids.

pub(super) fn check_ids(p: &Program) -> Result<(), VerifyError> {
    let mut seen: HashSet<&str> = HashSet::with_capacity(p.hooks.len() + p.absent.len());
    for (h, entry) in p.hooks.iter().enumerate() {
        // Bounds were checked with the hooks.
        let id = p.string(entry.id);
        if !seen.insert(id) {
            return Err(VerifyError::Duplicate {
                at: hook_loc(p, index_u32(h)),
                what: "hook id",
                name: id.to_owned(),
            });
        }
    }
    for absent in &p.absent {
        in_bounds(p, absent.id, || Location::Program)?;
        let id = p.string(absent.id);
        if !seen.insert(id) {
            return Err(VerifyError::Duplicate {
                at: Location::Program,
                what: "hook id (of an absent hook)",
                name: id.to_owned(),
            });
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// 8: the event index.

pub(super) fn check_events(p: &Program) -> Result<(), VerifyError> {
    let bad = |reason: String| VerifyError::BadEvents {
        at: Location::Events,
        reason,
    };
    let hooks_list = |what: &dyn Fn() -> String, list: &[u32]| -> Result<(), VerifyError> {
        if list.len() > MAX_TABLE_LEN {
            return Err(bad(format!("the hook list of {} is too long", what())));
        }
        let mut prev: Option<u32> = None;
        for &h in list {
            in_range(h, p.hooks.len(), "hook", || Location::Events)?;
            if prev.is_some_and(|q| q >= h) {
                return Err(bad(format!(
                    "the hooks of {} are not in increasing order (hook {h} after hook {})",
                    what(),
                    prev.unwrap_or(0)
                )));
            }
            prev = Some(h);
        }
        Ok(())
    };
    let mut prev: Option<&str> = None;
    for (name, list) in &p.events.named {
        in_bounds(p, *name, || Location::Events)?;
        let text = p.string(*name);
        if let Some(q) = prev {
            if q == text {
                return Err(VerifyError::Duplicate {
                    at: Location::Events,
                    what: "event",
                    name: text.to_owned(),
                });
            }
            if q > text {
                return Err(bad(format!(
                    "event names are not sorted (`{text}` after `{q}`)"
                )));
            }
        }
        prev = Some(text);
        hooks_list(&|| format!("event `{text}`"), list)?;
    }
    hooks_list(&|| "the wildcard".to_owned(), &p.events.wildcard)
}

// ---------------------------------------------------------------------------
// 9: debug information.

pub(super) fn check_debug(p: &Program) -> Result<(), VerifyError> {
    let hooks = &p.debug.hooks;
    if !hooks.is_empty() && hooks.len() != p.hooks.len() {
        return Err(VerifyError::BadDebug {
            at: Location::Program,
            reason: format!(
                "{} entries for {} hooks (expected none or one per hook)",
                hooks.len(),
                p.hooks.len()
            ),
        });
    }
    for (i, (debug, hook)) in hooks.iter().zip(&p.hooks).enumerate() {
        let at = || hook_loc(p, index_u32(i));
        in_bounds(p, debug.at, at)?;
        let mut prev: Option<u32> = None;
        for mark in &debug.marks {
            in_bounds(p, mark.text, at)?;
            in_bounds(p, mark.at, at)?;
            let inside = (hook.code.0..hook.code.1).contains(&mark.op);
            let ordered = prev.is_none_or(|q| q < mark.op);
            if !inside || !ordered {
                return Err(VerifyError::BadDebug {
                    at: at(),
                    reason: format!(
                        "sub-condition at instruction {} is {}",
                        mark.op,
                        if inside {
                            "not after the previous one"
                        } else {
                            "outside the hook's code"
                        }
                    ),
                });
            }
            prev = Some(mark.op);
        }
    }
    Ok(())
}
