//! The one merge of `hookc init`'s entries into a host's JSON settings
//! file, the same for every host: every member the file has is kept, in its
//! order (`serde_json`'s `preserve_order`); an event whose list already has
//! an entry running the command gets no second one; a file that is not a
//! JSON object with a `hooks` object of lists is refused, never replaced.
//!
//! The hosts differ only in what they hand over: the members a settings
//! file must have besides `hooks` (Cursor's `version`), and one ready-made
//! entry per event (`super::claude_code` and its siblings build them).

use serde_json::{Map, Value};

/// What to merge into one settings file.
pub(super) struct Merge {
    /// Members the file must have besides `hooks`, added (at the end) only
    /// where the file lacks them: a value already there is the user's. A
    /// dotted name is a member of a member (`hooks.managed_dir`).
    pub required: Vec<(String, Value)>,
    /// Members set to their value whatever the file has (a managed
    /// install's `allowManagedHooksOnly: true`); dotted as `required`.
    pub set: Vec<(String, Value)>,
    /// The entries, in the order they are added.
    pub entries: Vec<Wanted>,
    /// Commands that are ours under another form than a pin or deadline
    /// apart (a managed install's, run by a `hookc` moved since): an entry
    /// running one runs the wanted command instead. `None`: only the pin
    /// and the deadline may differ.
    pub ours: Option<Box<Ours>>,
}

/// A test of whether a command is ours ([`Merge::ours`]).
pub(super) type Ours = dyn Fn(&str) -> bool;

/// One entry to merge.
pub(super) struct Wanted {
    /// The event whose list it joins.
    pub event: String,
    /// The command it runs: an entry of the list that runs it is ours.
    pub command: String,
    /// The entry.
    pub entry: Value,
}

/// The settings with `merge` applied to `existing` (the file's bytes, if
/// there is a file); `None` when the file has everything already. An error
/// says what is wrong with the file, for
/// [`super::InitError::Settings`] to name it.
pub(super) fn merge(existing: Option<&[u8]>, merge: Merge) -> Result<Option<String>, String> {
    let mut root = match existing {
        None => Value::Object(Map::new()),
        Some(bytes) => {
            serde_json::from_slice(bytes).map_err(|e| format!("is not valid JSON ({e})"))?
        }
    };
    let Value::Object(top) = &mut root else {
        return Err("is not a JSON object".to_owned());
    };
    let mut changed = false;
    for (name, value, replace) in members(merge.required, merge.set) {
        changed |= put(top, &name, value, replace)?;
    }
    let hooks = top
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err("has a `hooks` member that is not an object".to_owned());
    };
    let ours = merge.ours;
    for Wanted {
        event,
        command,
        entry,
    } in merge.entries
    {
        let list = hooks
            .entry(event.as_str())
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(list) = list else {
            return Err(format!("has a `hooks.{event}` member that is not a list"));
        };
        // A re-pin: the entry that runs the command under another pin
        // runs it under this one now.
        let same = same_as(&command, ours.as_deref());
        for e in list.iter_mut() {
            changed |= repin(e, &command, &same);
        }
        if !list.iter().any(|e| runs(e, &command)) {
            list.push(entry);
            changed = true;
        }
    }
    if !changed {
        return Ok(None);
    }
    serde_json::to_string_pretty(&root)
        .map(|mut text| {
            text.push('\n');
            Some(text)
        })
        .map_err(|e| format!("cannot be written back ({e})"))
}

/// The `required` members (not replacing) then the `set` ones
/// (replacing), each with whether it replaces a value already there.
pub(super) fn members(
    required: Vec<(String, Value)>,
    set: Vec<(String, Value)>,
) -> impl Iterator<Item = (String, Value, bool)> {
    let required = required.into_iter().map(|(n, v)| (n, v, false));
    required.chain(set.into_iter().map(|(n, v)| (n, v, true)))
}

/// Puts `value` at the dotted `name` of `top` (the members on the way
/// made objects where absent), replacing a value there only if `replace`;
/// whether it changed anything. An error names a member on the way that
/// is not an object.
fn put(
    top: &mut Map<String, Value>,
    name: &str,
    value: Value,
    replace: bool,
) -> Result<bool, String> {
    let mut table = top;
    let mut parts = name.split('.').peekable();
    let mut path = String::new();
    while let Some(part) = parts.next() {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(part);
        if parts.peek().is_none() {
            return Ok(match table.get(part) {
                Some(old) if !replace || *old == value => false,
                _ => {
                    table.insert(part.to_owned(), value);
                    true
                }
            });
        }
        let next = table
            .entry(part)
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(next) = next else {
            return Err(format!("has a `{path}` member that is not an object"));
        };
        table = next;
    }
    Ok(false)
}

/// `command` without its `--pin DIGEST` and `--deadline MS` words and
/// without the adopted hooks' policy (an entry `init` wrote before any of
/// them changed is the same entry).
pub(super) fn unpinned(command: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut words = command.split(' ');
    while let Some(w) = words.next() {
        if w == "--pin" || w == "--deadline" {
            words.next();
        } else if !w.contains(super::adopt::ADOPTED_WORD) {
            out.push(w);
        }
    }
    out.join(" ")
}

/// Whether a command is `command` in another form: under another
/// `--pin` or `--deadline` (or none), or one `ours` accepts.
pub(super) fn same_as<'a>(
    command: &str,
    ours: Option<&'a dyn Fn(&str) -> bool>,
) -> impl Fn(&str) -> bool + 'a {
    let target = unpinned(command);
    move |c: &str| unpinned(c) == target || ours.is_some_and(|f| f(c))
}

/// Makes an entry that runs `command` in another form (`same`) run it as
/// `command`; whether it changed anything. Every shape, as [`runs`].
fn repin(entry: &mut Value, command: &str, same: &dyn Fn(&str) -> bool) -> bool {
    let mut changed = false;
    let mut fix = |h: &mut Value| {
        for key in ["command", "bash"] {
            if let Some(Value::String(c)) = h.get_mut(key) {
                if c != command && same(c) {
                    *c = command.to_owned();
                    changed = true;
                }
            }
        }
    };
    fix(entry);
    if let Some(Value::Array(hs)) = entry.get_mut("hooks") {
        hs.iter_mut().for_each(&mut fix);
    }
    changed
}

/// Whether a settings entry runs `command`: as its own `command` (Cursor's
/// flat entries) or `bash` (Copilot's), or as the `command` of one of its
/// `hooks` (the matcher groups of Claude Code, Codex and Gemini CLI).
/// Looking at every shape keeps this one test for every host.
pub(super) fn runs(entry: &Value, command: &str) -> bool {
    let is_it = |h: &Value| {
        ["command", "bash"]
            .iter()
            .any(|key| h.get(*key).and_then(Value::as_str) == Some(command))
    };
    is_it(entry)
        || entry
            .get("hooks")
            .and_then(Value::as_array)
            .is_some_and(|hs| hs.iter().any(is_it))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CMD: &str = "hookc hook --host claude-code p.yaml";

    fn wanted(event: &str, entry: Value) -> Wanted {
        Wanted {
            event: event.into(),
            command: CMD.into(),
            entry,
        }
    }

    fn ours() -> Merge {
        Merge {
            required: vec![("version".to_owned(), json!(1))],
            set: Vec::new(),
            ours: None,
            entries: vec![
                wanted(
                    "PreToolUse",
                    json!({"matcher": "*", "hooks": [{"type": "command", "command": CMD}]}),
                ),
                wanted("Stop", json!({"command": CMD})),
                wanted("agentStop", json!({"type": "command", "bash": CMD})),
            ],
        }
    }

    #[test]
    fn settings_are_merged_keeping_what_is_there() {
        let before = br#"{"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash",
            "hooks": [{"type": "command", "command": "mine.sh"}]}]}, "env": {"A": "1"}}"#;
        let merged = merge(Some(before), ours()).unwrap().unwrap();
        let v: Value = serde_json::from_str(&merged).unwrap();
        let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["model", "hooks", "env", "version"], "{merged}");
        assert_eq!(v["env"]["A"], "1");
        let pre = v["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2, "{merged}");
        assert_eq!(pre[0]["hooks"][0]["command"], "mine.sh");
        assert_eq!(pre[1]["matcher"], "*");
        assert_eq!(v["hooks"]["Stop"][0]["command"], CMD);
        // Again: nothing to add, in either entry shape.
        assert_eq!(merge(Some(merged.as_bytes()), ours()).unwrap(), None);
    }

    #[test]
    fn set_members_replace_and_dotted_members_nest() {
        let mut m = ours();
        m.set = vec![("allowManagedHooksOnly".to_owned(), json!(true))];
        m.required = vec![("a.b".to_owned(), json!("/x"))];
        let before = br#"{"allowManagedHooksOnly": false, "a": {"c": 1}}"#;
        let merged = merge(Some(before), m).unwrap().unwrap();
        let v: Value = serde_json::from_str(&merged).unwrap();
        assert_eq!(v["allowManagedHooksOnly"], true);
        assert_eq!(v["a"], json!({"c": 1, "b": "/x"}));
        let mut m = ours();
        m.required = vec![("a.b".to_owned(), json!("/x"))];
        let e = merge(Some(br#"{"a": 1}"#), m).unwrap_err();
        assert!(e.contains("`a` member that is not an object"), "{e}");
    }

    #[test]
    fn a_required_member_already_there_is_kept() {
        let merged = merge(Some(br#"{"version": 2}"#), ours()).unwrap().unwrap();
        let v: Value = serde_json::from_str(&merged).unwrap();
        assert_eq!(v["version"], 2);
    }

    #[test]
    fn a_settings_file_of_another_shape_is_refused() {
        assert!(merge(Some(b"[1]"), ours())
            .unwrap_err()
            .contains("not a JSON object"));
        assert!(merge(Some(b"{"), ours())
            .unwrap_err()
            .contains("not valid JSON"));
        let e = merge(Some(br#"{"hooks": []}"#), ours()).unwrap_err();
        assert!(e.contains("`hooks` member that is not an object"), "{e}");
        let e = merge(Some(br#"{"hooks": {"Stop": {}}}"#), ours()).unwrap_err();
        assert!(e.contains("`hooks.Stop`"), "{e}");
    }
}
