//! `hookc diff --log FILE`: what a shadow policy (`hookc hook --shadow`)
//! would have changed on live traffic, from the decision log that holds
//! both: each live line and the shadow line of the same `decision_id`,
//! compared by their deciding hook and its action's type, counted per
//! event and transition (`docs/src/hosts/teams.md`).

use crate::args::print;
use crate::error::CliError;
use crate::exit::Exit;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::path::Path;

/// A logged decision as the report names it: `HOOK (TYPE)`, or `none`.
fn verdict(line: &Value) -> String {
    if let Some(e) = line.get("error").and_then(Value::as_str) {
        return format!("error ({e})");
    }
    match line.get("hook").and_then(Value::as_str) {
        None => "none".to_owned(),
        Some(hook) => {
            let kind = line
                .pointer("/decision/action/type")
                .and_then(Value::as_str)
                .unwrap_or("?");
            format!("{hook} ({kind})")
        }
    }
}

/// The report of the shadow lines of `path`.
pub fn report(path: &Path, json_out: bool) -> Result<Exit, CliError> {
    let file = std::fs::File::open(path).map_err(|source| CliError::Read {
        path: path.to_owned(),
        source,
    })?;
    let mut live: HashMap<String, Value> = HashMap::new();
    let mut shadows: Vec<Value> = Vec::new();
    let mut unreadable = 0usize;
    for line in std::io::BufReader::new(file).lines() {
        let line = match line {
            Ok(line) => line,
            // A line that is not UTF-8 is consumed and counted; any other
            // read error (a folder, a failing disk) would repeat forever.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                unreadable += 1;
                continue;
            }
            Err(source) => {
                return Err(CliError::Read {
                    path: path.to_owned(),
                    source,
                })
            }
        };
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            unreadable += 1;
            continue;
        };
        let Some(id) = v
            .get("decision_id")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            continue;
        };
        if v.get("shadow") == Some(&Value::Bool(true)) {
            shadows.push(v);
        } else {
            live.insert(id, v);
        }
    }
    let (mut compared, mut changed) = (0usize, 0usize);
    let mut transitions: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    for shadow in &shadows {
        let id = shadow
            .get("decision_id")
            .and_then(Value::as_str)
            .unwrap_or("");
        let Some(before) = live.get(id) else {
            continue;
        };
        compared += 1;
        let (was, would) = (verdict(before), verdict(shadow));
        if was != would {
            changed += 1;
            let event = before.get("event").and_then(Value::as_str).unwrap_or("?");
            *transitions
                .entry((event.to_owned(), was, would))
                .or_default() += 1;
        }
    }
    if json_out {
        let list: Vec<Value> = transitions
            .iter()
            .map(|((event, was, would), n)| {
                json!({"event": event, "live": was, "shadow": would, "count": n})
            })
            .collect();
        print(&format!(
            "{}\n",
            json!({"compared": compared, "changed": changed, "unreadable_lines": unreadable, "transitions": list})
        ))?;
    } else {
        let mut text = format!(
            "{}: {compared} calls with a shadow decision, {changed} decided otherwise\n",
            path.display()
        );
        for ((event, was, would), n) in &transitions {
            text.push_str(&format!("  {event}: {was} -> {would}: {n}\n"));
        }
        if unreadable > 0 {
            text.push_str(&format!("  ({unreadable} lines were not JSON)\n"));
        }
        print(&text)?;
    }
    Ok(Exit::findings_if(changed > 0))
}
