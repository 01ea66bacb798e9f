//! The merge of `hookc init`'s entries into a host's TOML settings file
//! (Codex's `requirements.toml`, `hookc init --managed`), with the rules
//! of the JSON merge ([`super::merge`]): every table, key and comment the
//! file has is kept, in its order (`toml_edit` edits the document in
//! place); an event whose list already has an entry running the command
//! gets no second one, and one running it under another pin is re-pinned;
//! a file that is not TOML, or whose `hooks` is not a table of lists, is
//! refused, never replaced.
//!
//! Entries are written as the file's own lists are: an array of tables
//! (`[[hooks.PreToolUse]]`) when the event has none yet, each entry's
//! members inline (`hooks = [{ type = "command", command = "…" }]`).

use super::merge::{members, runs, same_as, Merge, Wanted};
use serde_json::{Map, Value};
use toml_edit::{Array, ArrayOfTables, DocumentMut, InlineTable, Item, Table, TableLike};

/// The TOML settings with `merge` applied to `existing` (the file's bytes,
/// if there is a file); `None` when the file has everything already. An
/// error says what is wrong with the file.
pub(super) fn merge(existing: Option<&[u8]>, merge: Merge) -> Result<Option<String>, String> {
    let text = match existing {
        None => "",
        Some(bytes) => {
            std::str::from_utf8(bytes).map_err(|e| format!("is not UTF-8 text ({e})"))?
        }
    };
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| format!("is not valid TOML ({})", e.message()))?;
    let mut changed = false;
    for (name, value, replace) in members(merge.required, merge.set) {
        changed |= put(doc.as_table_mut(), &name, &value, replace)?;
    }
    let hooks = doc
        .as_table_mut()
        .entry("hooks")
        .or_insert_with(|| Item::Table(Table::new()));
    let Some(hooks) = hooks.as_table_like_mut() else {
        return Err("has a `hooks` member that is not a table".to_owned());
    };
    let ours = merge.ours;
    for Wanted {
        event,
        command,
        entry,
    } in merge.entries
    {
        let list = hooks
            .entry(&event)
            .or_insert(Item::ArrayOfTables(ArrayOfTables::new()));
        let not_a_list = || format!("has a `hooks.{event}` member that is not a list");
        // A re-pin, as the JSON merge's: the entry that runs the command
        // under another pin runs it under this one now.
        let same = same_as(&command, ours.as_deref());
        for_each_table(list, &mut |t| changed |= repin(t, &command, &same));
        let listed = match to_json(list) {
            Value::Array(entries) => entries,
            _ => return Err(not_a_list()),
        };
        if listed.iter().any(|e| runs(e, &command)) {
            continue;
        }
        match list {
            Item::ArrayOfTables(tables) => tables.push(table(&entry)),
            Item::Value(toml_edit::Value::Array(values)) => values.push(inline(&entry)),
            _ => return Err(not_a_list()),
        }
        changed = true;
    }
    Ok(changed.then(|| doc.to_string()))
}

/// Puts `value` at the dotted `name` of `top` (the tables on the way made
/// where absent), replacing a value there only if `replace`; whether it
/// changed anything.
fn put(top: &mut Table, name: &str, value: &Value, replace: bool) -> Result<bool, String> {
    let mut table: &mut dyn TableLike = top;
    let mut parts = name.split('.').peekable();
    let mut path = String::new();
    while let Some(part) = parts.next() {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(part);
        if parts.peek().is_none() {
            let same = table.get(part).map(to_json);
            return Ok(match same {
                Some(old) if !replace || old == *value => false,
                _ => {
                    table.insert(part, Item::Value(to_toml(value)));
                    true
                }
            });
        }
        let next = table
            .entry(part)
            .or_insert(Item::Table(Table::new()))
            .as_table_like_mut();
        let Some(next) = next else {
            return Err(format!("has a `{path}` member that is not a table"));
        };
        table = next;
    }
    Ok(false)
}

/// Calls `f` on each table of a list: the tables of `[[…]]`, or the
/// inline tables of an array.
fn for_each_table(list: &mut Item, f: &mut dyn FnMut(&mut dyn TableLike)) {
    match list {
        Item::ArrayOfTables(tables) => tables.iter_mut().for_each(|t| f(t)),
        Item::Value(toml_edit::Value::Array(values)) => values
            .iter_mut()
            .filter_map(toml_edit::Value::as_inline_table_mut)
            .for_each(|t| f(t)),
        _ => {}
    }
}

/// Makes an entry that runs `command` in another form (`same`: another
/// pin, deadline or binary) run it as `command` (its own `command`, or one
/// of its `hooks`); whether it changed anything.
fn repin(entry: &mut dyn TableLike, command: &str, same: &dyn Fn(&str) -> bool) -> bool {
    let fix = |t: &mut dyn TableLike| -> bool {
        let Some(item) = t.get_mut("command") else {
            return false;
        };
        match item.as_str() {
            Some(c) if c != command && same(c) => {
                *item = toml_edit::value(command);
                true
            }
            _ => false,
        }
    };
    let mut changed = fix(entry);
    if let Some(hooks) = entry.get_mut("hooks") {
        for_each_table(hooks, &mut |h| changed |= fix(h));
    }
    changed
}

/// A TOML item as JSON (dates as their text), to compare and to test
/// with [`runs`].
fn to_json(item: &Item) -> Value {
    match item {
        Item::None => Value::Null,
        Item::Value(v) => value_json(v),
        Item::Table(t) => table_json(t.iter()),
        Item::ArrayOfTables(a) => Value::Array(a.iter().map(|t| table_json(t.iter())).collect()),
    }
}

fn table_json<'a>(members: impl Iterator<Item = (&'a str, &'a Item)>) -> Value {
    Value::Object(
        members
            .map(|(k, v)| (k.to_owned(), to_json(v)))
            .collect::<Map<_, _>>(),
    )
}

fn value_json(v: &toml_edit::Value) -> Value {
    use toml_edit::Value as T;
    match v {
        T::String(s) => Value::from(s.value().as_str()),
        T::Integer(i) => Value::from(*i.value()),
        T::Float(f) => Value::from(*f.value()),
        T::Boolean(b) => Value::from(*b.value()),
        T::Datetime(d) => Value::from(d.value().to_string()),
        T::Array(a) => Value::Array(a.iter().map(value_json).collect()),
        T::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_owned(), value_json(v)))
                .collect(),
        ),
    }
}

/// A JSON value as TOML (`null`s left out: TOML has none).
fn to_toml(v: &Value) -> toml_edit::Value {
    match v {
        Value::Null => toml_edit::Value::from(""),
        Value::Bool(b) => toml_edit::Value::from(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => toml_edit::Value::from(i),
            None => toml_edit::Value::from(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => toml_edit::Value::from(s.as_str()),
        Value::Array(items) => toml_edit::Value::Array(
            items
                .iter()
                .filter(|i| !i.is_null())
                .map(to_toml)
                .collect::<Array>(),
        ),
        Value::Object(_) => toml_edit::Value::InlineTable(inline_table(v)),
    }
}

fn inline_table(v: &Value) -> InlineTable {
    let mut t = InlineTable::new();
    if let Value::Object(members) = v {
        for (k, m) in members.iter().filter(|(_, m)| !m.is_null()) {
            t.insert(k, to_toml(m));
        }
    }
    t
}

/// An entry as a table of `[[…]]`, its members inline.
fn table(entry: &Value) -> Table {
    let mut t = Table::new();
    if let Value::Object(members) = entry {
        for (k, m) in members.iter().filter(|(_, m)| !m.is_null()) {
            t.insert(k, Item::Value(to_toml(m)));
        }
    }
    t
}

/// An entry as an inline table of an array.
fn inline(entry: &Value) -> toml_edit::Value {
    toml_edit::Value::InlineTable(inline_table(entry))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CMD: &str = "/usr/bin/hookc hook --host codex --deadline 9000 --pin sha256:aa /g.yaml";

    fn ours(command: &str) -> Merge {
        Merge {
            required: vec![("hooks.managed_dir".to_owned(), json!("/etc/hookc/codex"))],
            set: vec![("allow_managed_hooks_only".to_owned(), json!(true))],
            ours: None,
            entries: vec![Wanted {
                event: "PreToolUse".into(),
                command: command.into(),
                entry: json!({"hooks": [{"type": "command", "command": command, "timeout": 10}]}),
            }],
        }
    }

    fn parse(text: &str) -> Value {
        let doc: DocumentMut = text.parse().unwrap();
        table_json(doc.as_table().iter())
    }

    #[test]
    fn a_requirements_file_is_merged_keeping_its_keys_and_comments() {
        let before = "# the org's rules\nallowed_sandbox_modes = [\"read-only\"]\nallow_managed_hooks_only = false\n\n[hooks]\nmanaged_dir = \"/opt/org/hooks\"\n\n[[hooks.Stop]]\nhooks = [{ type = \"command\", command = \"notify.sh\" }]\n";
        let merged = merge(Some(before.as_bytes()), ours(CMD)).unwrap().unwrap();
        assert!(merged.starts_with("# the org's rules\n"), "{merged}");
        let v = parse(&merged);
        assert_eq!(v["allowed_sandbox_modes"], json!(["read-only"]));
        assert_eq!(v["allow_managed_hooks_only"], true, "{merged}");
        // The administrator's folder is kept.
        assert_eq!(v["hooks"]["managed_dir"], "/opt/org/hooks");
        assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["command"], "notify.sh");
        assert_eq!(v["hooks"]["PreToolUse"][0]["hooks"][0]["command"], CMD);
        assert_eq!(v["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"], 10);
        // Again: nothing to do; then a re-pin changes the one entry.
        assert_eq!(merge(Some(merged.as_bytes()), ours(CMD)).unwrap(), None);
        let repinned = CMD.replace("sha256:aa", "sha256:bb");
        let again = merge(Some(merged.as_bytes()), ours(&repinned))
            .unwrap()
            .unwrap();
        let v = parse(&again);
        let pre = v["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 1, "{again}");
        assert_eq!(pre[0]["hooks"][0]["command"], repinned.as_str());
    }

    #[test]
    fn an_inline_list_gets_an_inline_entry() {
        let before =
            "[hooks]\nPreToolUse = [{ hooks = [{ type = \"command\", command = \"mine.sh\" }] }]\n";
        let merged = merge(Some(before.as_bytes()), ours(CMD)).unwrap().unwrap();
        let v = parse(&merged);
        let pre = v["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2, "{merged}");
        assert_eq!(pre[1]["hooks"][0]["command"], CMD);
    }

    #[test]
    fn a_file_of_another_shape_is_refused() {
        let e = merge(Some(b"allow = ["), ours(CMD)).unwrap_err();
        assert!(e.contains("not valid TOML"), "{e}");
        let e = merge(Some(b"hooks = 1\n"), ours(CMD)).unwrap_err();
        assert!(e.contains("`hooks` member that is not a table"), "{e}");
        let e = merge(Some(b"[hooks]\nPreToolUse = 1\n"), ours(CMD)).unwrap_err();
        assert!(e.contains("`hooks.PreToolUse`"), "{e}");
    }
}
