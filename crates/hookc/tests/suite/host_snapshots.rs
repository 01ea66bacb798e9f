//! Each host profile against its snapshot: what the host's own sources say
//! it has (`crates/hookc/src/hosts/snapshots/HOST.json`, written by
//! `scripts/hosts/snapshot_*.py` from the pinned npm package), so that a
//! profile cannot drift from the host it names (`docs/src/hosts/profiles.md`).
//!
//! For every host with a snapshot:
//! - every event the host has is in the profile, or in `left_out.events`
//!   with a reason; the profile has no event the host lacks;
//! - every payload member of an event the profile has is declared, or in
//!   `left_out.fields` (`EVENT.member`, or `*.member` for every event);
//! - every built-in tool is among the profile's tool names, or in
//!   `left_out.tools`; the profile names no tool the host lacks; its MCP
//!   prefix is the host's;
//! - every member hookc answers on an event is one the host reads there,
//!   and every member the host reads is answered or in `left_out.answers`;
//! - every `left_out` entry names something the host has, and says why.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

fn snapshot_path(host: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("src/hosts/snapshots/{host}.json"))
}

/// The profile as JSON (anchors resolved).
fn profile(host: &str) -> Value {
    let text = hookc::hosts::profile(host).unwrap();
    let yaml: serde_yaml::Value = serde_yaml::from_str(text).unwrap();
    serde_json::to_value(yaml).unwrap()
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// The members of `map` as `A.b` paths: a member whose value is an object
/// the host reads by its members (the snapshot lists `A.x` paths) gives
/// one path per member.
fn answer_paths(answer: &Value, read: &BTreeSet<String>, out: &mut BTreeSet<String>) {
    let Some(members) = answer.as_object() else {
        return;
    };
    for (key, value) in members {
        let key = key.trim_end_matches('?');
        let prefix = format!("{key}.");
        match value.as_object() {
            Some(inner) if read.iter().any(|r| r.starts_with(&prefix)) => {
                for k in inner.keys() {
                    out.insert(format!("{key}.{}", k.trim_end_matches('?')));
                }
            }
            _ => {
                out.insert(key.to_owned());
            }
        }
    }
}

/// Whether `left` has `EVENT.name` or `*.name`.
fn left_out(left: &Value, event: &str, name: &str) -> bool {
    left.get(format!("{event}.{name}")).is_some() || left.get(format!("*.{name}")).is_some()
}

#[test]
fn every_profile_matches_its_hosts_own_sources() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for host in hookc::hosts::all() {
        let name = host.name();
        let path = snapshot_path(name);
        let meta = host.check_meta().unwrap();
        if !path.is_file() {
            // A host without a machine-readable source (Cursor) is verified
            // against nothing: its profile must not claim a version.
            if !meta.verified.is_empty() {
                problems.push(format!(
                    "{name}: claims verified versions but has no snapshot"
                ));
            }
            continue;
        }
        checked += 1;
        let snap: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let prof = profile(name);
        let hp = &prof["host_profile"];
        let left = &hp["left_out"];
        let mut problem = |p: String| problems.push(format!("{name}: {p}"));

        // The snapshot's version is the one the profile names.
        let (package, version) = (&snap["source"]["package"], &snap["source"]["version"]);
        let claimed = package.as_str().and_then(|p| meta.verified.get(p));
        if claimed.map(String::as_str) != version.as_str() {
            problem(format!(
                "snapshot of {package} {version}, profile verified {claimed:?}"
            ));
        }

        let host_events = keys(&snap["events"]);
        let prof_events = keys(&prof["events"]);
        for e in &host_events {
            if !prof_events.contains(e) && left["events"].get(e).is_none() {
                problem(format!(
                    "event `{e}` is neither in the profile nor left out"
                ));
            }
        }
        for e in &prof_events {
            if !host_events.contains(e) {
                problem(format!(
                    "the profile has event `{e}`, which the host does not"
                ));
            }
        }
        for e in keys(&left["events"]) {
            if !host_events.contains(&e) || prof_events.contains(&e) {
                problem(format!(
                    "left_out.events names `{e}`, which is not a left-out event"
                ));
            }
        }

        // Payload members.
        let common = keys(&prof["event_context_schema"]["properties"]);
        let mut tools_declared: BTreeSet<String> = BTreeSet::new();
        let mut prefixes: BTreeSet<String> = BTreeSet::new();
        for e in prof_events.intersection(&host_events) {
            let props = &prof["events"][e]["context"]["properties"];
            let declared: BTreeSet<String> = common.union(&keys(props)).cloned().collect();
            let wanted = keys(&snap["common_fields"])
                .into_iter()
                .chain(keys(&snap["events"][e]["fields"]));
            for f in wanted {
                if !declared.contains(&f) && !left_out(&left["fields"], e, &f) {
                    problem(format!(
                        "`{e}` payload member `{f}` is neither declared nor left out"
                    ));
                }
            }
            for tool_member in ["tool_name", "toolName"] {
                let t = &props[tool_member];
                let values = t["vocabulary"]["values"]
                    .as_array()
                    .or(t["enum"].as_array());
                tools_declared.extend(
                    values
                        .into_iter()
                        .flatten()
                        .filter_map(|v| v.as_str().map(str::to_owned)),
                );
                prefixes.extend(
                    t["vocabulary"]["prefixes"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|v| v.as_str().map(str::to_owned)),
                );
            }
        }

        // Tools.
        let host_tools: BTreeSet<String> = snap["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_owned())
            .collect();
        for t in &host_tools {
            if !tools_declared.contains(t) && left["tools"].get(t).is_none() {
                problem(format!(
                    "tool `{t}` is neither a tool name of the profile nor left out"
                ));
            }
        }
        for t in &tools_declared {
            if !host_tools.contains(t) {
                problem(format!(
                    "the profile names tool `{t}`, which the host does not have"
                ));
            }
        }
        let mcp = snap["mcp_tool_name"].as_str().unwrap_or_default();
        let mcp_prefix = mcp.split("{server}").next().unwrap_or_default();
        if !mcp_prefix.is_empty() && !prefixes.contains(mcp_prefix) {
            problem(format!(
                "MCP tools are `{mcp}`, but the profile's prefixes are {prefixes:?}"
            ));
        }
        if prefixes.iter().any(|p| p != mcp_prefix) {
            problem(format!(
                "a tool prefix of {prefixes:?} is not the host's MCP scheme `{mcp}`"
            ));
        }

        // Answers: what hookc writes is what the host reads, and what the
        // host reads is written or left out.
        let common_answers: BTreeSet<String> = snap["common_answers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_owned())
            .collect();
        for e in prof_events.intersection(&host_events) {
            let read: BTreeSet<String> = snap["events"][e]["answers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_owned())
                .chain(common_answers.iter().cloned())
                .collect();
            let mut written = BTreeSet::new();
            let table = host.answers(e).unwrap().unwrap();
            for template in table.values() {
                answer_paths(template, &read, &mut written);
            }
            let failure = meta.failure.events.get(e).unwrap_or(&meta.failure.default);
            // A failure answer, and the one it gives instead when its
            // `unless` holds (a Stop hook that blocked once).
            let otherwise = failure.otherwise.as_deref();
            for t in [
                failure.json.as_ref(),
                otherwise.and_then(|o| o.json.as_ref()),
            ]
            .into_iter()
            .flatten()
            {
                answer_paths(t, &read, &mut written);
            }
            for w in &written {
                if !read.contains(w) {
                    problem(format!(
                        "`{e}` answers `{w}`, which the host does not read there"
                    ));
                }
            }
            for r in &read {
                if !written.contains(r) && !left_out(&left["answers"], e, r) {
                    problem(format!(
                        "`{e}` answer member `{r}` is neither written nor left out"
                    ));
                }
            }
        }

        // Every left-out entry has a reason and names something real.
        for kind in ["events", "fields", "tools", "answers"] {
            for (k, why) in left[kind].as_object().into_iter().flatten() {
                if why.as_str().is_none_or(|w| w.trim().is_empty()) {
                    problem(format!("left_out.{kind}.{k} gives no reason"));
                }
                let real = match kind {
                    "tools" => host_tools.contains(k),
                    "events" => true,
                    _ => {
                        let (e, m) = k.split_once('.').unwrap_or(("", k));
                        let in_event = |e: &str| {
                            let field = snap["events"][e]["fields"].get(m).is_some()
                                || snap["common_fields"].get(m).is_some();
                            let answer = snap["events"][e]["answers"]
                                .as_array()
                                .into_iter()
                                .flatten()
                                .any(|a| a == m)
                                || common_answers.contains(m);
                            if kind == "fields" {
                                field
                            } else {
                                answer
                            }
                        };
                        if e == "*" {
                            host_events.iter().any(|e| in_event(e))
                        } else {
                            in_event(e)
                        }
                    }
                };
                if !real {
                    problem(format!("left_out.{kind}.{k} names nothing the host has"));
                }
            }
        }
    }
    assert!(checked >= 4, "snapshots checked: {checked}");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The snapshots are what the scripts write: sorted keys, two-space
/// indent, a newline at the end (so a regenerated one diffs cleanly).
#[test]
fn snapshots_are_in_their_scripts_format() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/hosts/snapshots");
    let mut seen = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        for member in [
            "host",
            "source",
            "common_fields",
            "events",
            "common_answers",
            "tools",
            "mcp_tool_name",
        ] {
            assert!(
                value.get(member).is_some(),
                "{}: no `{member}`",
                path.display()
            );
        }
        let host = value["host"].as_str().unwrap().to_owned();
        assert!(
            hookc::hosts::find(&host).is_some(),
            "{}: no profile for `{host}`",
            path.display()
        );
        assert!(text.ends_with("}\n"), "{}", path.display());
        seen.insert(host, path);
    }
    assert!(seen.len() >= 4, "{seen:?}");
}

/// The end-to-end suite runs the host versions the profiles say they are
/// verified against, by the command each profile's probe runs: its pins
/// (`scripts/hosts/common.py`, `PINNED`) are read here and compared.
#[test]
fn the_suites_pins_are_the_profiles_versions() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/hosts/common.py");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut pinned = 0;
    for host in hookc::hosts::all() {
        let Some(probe) = host.probe() else {
            continue;
        };
        let version = &host.meta().verified[&probe.package];
        let pin = format!(
            r#""{}": {{"package": "{}", "version": "{version}", "bin": "{}"}}"#,
            host.name(),
            probe.package,
            probe.program
        );
        assert!(
            text.contains(&pin),
            "{}: no `{pin}` in {}",
            host.name(),
            path.display()
        );
        pinned += 1;
    }
    assert!(pinned >= 4);
}
