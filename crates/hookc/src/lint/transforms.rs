//! W0012: two transforms of one event patch the same context member
//! (`docs/src/semantics.md#transforms`).
//!
//! Transforms apply in hook order, so when both match, the later one's
//! value is the one the hooks after it (and the host's `patched`) see: no
//! race, but easily not what the author meant. A member is a path of the
//! patch's object keys down to a value that is not an object (that value
//! replaces what was there); two members overlap when one is the other or
//! lies under it. The conditions are not compared: the warning says what
//! happens when both match.
//!
//! One pass over the hooks in evaluation order, each transform's members
//! looked up in the members (and their prefixes) of the earlier transforms
//! of the same events: linear in the policy's patches, times its events
//! for a `"*"` transform.

use super::report::HookOrigin;
use crate::check::actions::ActionValue;
use crate::check::policy::{CheckedPolicy, Events};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::Effect;
use hookc_runtime::bytecode::{PATCH_PARAM, SET_PARAM};
use std::collections::{BTreeSet, HashMap};

/// The events key of a `"*"` transform.
const ANY: &str = "*";

/// Reports W0012 for each transform that patches a member an earlier
/// transform of one of its events patches. `origins` are by
/// [`crate::check::policy::Hook::source_order`].
pub fn report(policy: &CheckedPolicy, origins: &[HookOrigin], diags: &mut Diagnostics) {
    // Per event key: the first transform to patch each member, and the
    // first to patch something under each prefix.
    let mut set: HashMap<&str, HashMap<String, usize>> = HashMap::new();
    let mut under: HashMap<&str, HashMap<String, usize>> = HashMap::new();
    let hooks = policy.hooks();
    for (i, hook) in hooks.iter().enumerate() {
        if !hook.enabled || hook.action.effect != Effect::Transform {
            continue;
        }
        // The members its patch merges and its `set` sets.
        let mut members = Vec::new();
        for (_, value) in hook
            .action
            .params
            .iter()
            .filter(|(n, _)| n == PATCH_PARAM || n == SET_PARAM)
        {
            leaves(value, String::new(), &mut members);
        }
        if members.is_empty() {
            continue;
        }
        let keys: Vec<&str> = match &hook.events {
            // A "*" transform runs with every event's transforms.
            Events::Any => set
                .keys()
                .chain(under.keys())
                .copied()
                .chain([ANY])
                .collect(),
            Events::Named(names) => names.iter().map(String::as_str).chain([ANY]).collect(),
        };
        let mut reported = BTreeSet::new();
        for member in &members {
            for key in keys.iter().copied() {
                let earlier = set
                    .get(key)
                    .and_then(|m| prefixes(member).find_map(|p| m.get(p).copied()));
                let earlier = earlier.or_else(|| under.get(key)?.get(member).copied());
                if let Some(e) = earlier.and_then(|e| hooks.get(e)) {
                    if reported.insert(member.clone()) {
                        diags.push(finding(hook, e, member, origins));
                    }
                }
            }
        }
        let own: Vec<&str> = match &hook.events {
            Events::Any => vec![ANY],
            Events::Named(names) => names.iter().map(String::as_str).collect(),
        };
        for key in own {
            for member in &members {
                set.entry(key)
                    .or_default()
                    .entry(member.clone())
                    .or_insert(i);
                for p in prefixes(member).filter(|p| p.len() < member.len()) {
                    under
                        .entry(key)
                        .or_default()
                        .entry(p.to_owned())
                        .or_insert(i);
                }
            }
        }
    }
}

/// The warning on `hook`'s patch of `member`, which `earlier` patches too.
fn finding(
    hook: &crate::check::policy::Hook,
    earlier: &crate::check::policy::Hook,
    member: &str,
    origins: &[HookOrigin],
) -> Diagnostic {
    let mut d = Diagnostic::new(
        Code::TransformOverlap,
        format!(
            "hook `{}` patches `{member}`, which the earlier transform `{}` patches too: when both \
             match, the later one in hook order wins",
            hook.id, earlier.id
        ),
    )
    .at(hook.action.span)
    .label("patched again here")
    .help("merge the two rewrites into one hook, or give them conditions that exclude each other");
    if let Some(at) = origins
        .get(hook.source_order)
        .and_then(|o| o.node_path.as_ref())
    {
        d = d.node(format!("{at}.action.{PATCH_PARAM}"));
    }
    d
}

/// The members a patch sets: each path of object keys down to a value that
/// is not an object, dotted. Recursion follows the patch's nesting, which
/// the front ends bound.
fn leaves(value: &ActionValue, at: String, out: &mut Vec<String>) {
    match value {
        ActionValue::Object(entries) if !entries.is_empty() => {
            for (key, item) in entries {
                let path = if at.is_empty() {
                    key.clone()
                } else {
                    format!("{at}.{key}")
                };
                leaves(item, path, out);
            }
        }
        // `{}` at the top patches nothing; deeper, it makes the member an
        // object where it was not one, which is a patch of the member.
        ActionValue::Object(_) if at.is_empty() => {}
        _ => out.push(at),
    }
}

/// `a`, `a.b`, `a.b.c` for `a.b.c`: the member and the members it lies under.
fn prefixes(member: &str) -> impl Iterator<Item = &str> {
    member
        .match_indices('.')
        .map(move |(i, _)| member.get(..i).unwrap_or(member))
        .chain([member])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_lead_to_the_member() {
        assert_eq!(prefixes("a.b.c").collect::<Vec<_>>(), ["a", "a.b", "a.b.c"]);
        assert_eq!(prefixes("a").collect::<Vec<_>>(), ["a"]);
    }
}
