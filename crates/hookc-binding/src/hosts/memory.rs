//! Session memory: what the `remember` actions of one agent session's hook
//! calls stored, given back to every later call of the session as the
//! context member `remembered` (`docs/src/hosts/index.md`, "Session
//! memory").
//!
//! Why: a guard decides one call at a time, but some attacks take two.
//! The agent writes a script (a file in the project: allowed), then runs
//! it (`python3 diag.py` names nothing a guard knows). A hook that
//! remembers what the session wrote lets a later hook ask before that
//! code runs.
//!
//! - **Where**: one file per session and host,
//!   `STATE/sessions/HOST-ID.jsonl`. STATE is `$HOOKC_STATE_DIR`, else
//!   `$XDG_STATE_HOME/hookc`, else `$HOME/.local/state/hookc`. ID is the
//!   payload's session id (the member the host profile names) with every
//!   byte but `[A-Za-z0-9_-]` made `_`, cut to 64 bytes, and followed by a
//!   hash of the whole id, so that two ids never share a file by being
//!   spelt alike. A payload with no session id has no memory.
//! - **What**: each line is `{"set": NAME, "value": TEXT}`. Read back, the
//!   lines make `remembered`: an object of the sets, each the list of its
//!   distinct values in the order they were first stored.
//! - **When**: every collected `remember` match of a completed evaluation
//!   is stored after it, whatever it decided: a denied write then counts as
//!   written, which can only make a later guard ask more. A value already
//!   remembered is not stored again.
//! - **Concurrency**: hosts run a call's hooks in parallel, so each store
//!   is one `write` of whole lines to a file opened for appending.
//! - **Bounds**: a value longer than
//!   [`MAX_REMEMBERED_VALUE_BYTES`] is refused, and a file past
//!   [`MAX_SESSION_MEMORY_BYTES`] is neither read nor appended to: the
//!   call fails (closed, unless `--fail-open`), with a message naming the
//!   file to remove. A line that does not read (a torn write, an edit) is
//!   an error too, never skipped: a guard that reads the memory would
//!   otherwise decide without part of it.

use super::HookError;
use hookc_runtime::internals::fnv::Fnv;
use hookc_runtime::limits::{MAX_REMEMBERED_VALUE_BYTES, MAX_SESSION_MEMORY_BYTES};
use hookc_runtime::Match;
use serde_json::{Map, Value};
use std::hash::Hasher;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The action type that stores values in the session's memory.
pub const REMEMBER: &str = "remember";
/// The context member that holds what the session remembered.
pub const MEMBER: &str = "remembered";
/// Most bytes of the session id kept in the file's name (the hash that
/// follows tells longer ones apart).
const MAX_ID_IN_NAME: usize = 64;

/// One session's memory file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionMemory {
    file: PathBuf,
}

/// The values one evaluation stores: `(set, value)` pairs, in match order.
pub type Remembered = Vec<(String, String)>;

impl SessionMemory {
    /// The memory of the session `session_id` of `host` under the state
    /// folder the environment names (module doc); `None` when the
    /// environment names none.
    pub fn of(host: &str, session_id: &str) -> Option<SessionMemory> {
        let state = state_dir(|name| std::env::var_os(name))?;
        Some(SessionMemory::under(&state, host, session_id))
    }

    /// The memory of the session `session_id` of `host` under `state`.
    pub fn under(state: &Path, host: &str, session_id: &str) -> SessionMemory {
        SessionMemory {
            file: state
                .join("sessions")
                .join(format!("{host}-{}.jsonl", file_id(session_id))),
        }
    }

    /// The file.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// What the session remembered, as the `remembered` member reads it;
    /// empty when nothing was (no file yet).
    pub fn load(&self) -> Result<Map<String, Value>, HookError> {
        let text = match self.read_bounded()? {
            Some(text) => text,
            None => return Ok(Map::new()),
        };
        let mut sets: Map<String, Value> = Map::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let (set, value) = parse_line(line).ok_or_else(|| HookError::Memory {
                path: self.file.clone(),
                problem: format!(
                    "line {} is not a remembered value ({{\"set\": NAME, \"value\": TEXT}}); \
                     remove the file to start the session's memory afresh",
                    n + 1
                ),
            })?;
            let values = sets.entry(set).or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(values) = values {
                if !values.iter().any(|v| v.as_str() == Some(value.as_str())) {
                    values.push(Value::String(value));
                }
            }
        }
        Ok(sets)
    }

    /// Appends `values` not already in `known` (what [`SessionMemory::load`]
    /// gave), in one write.
    pub fn store(&self, known: &Map<String, Value>, values: &Remembered) -> Result<(), HookError> {
        let mut text = String::new();
        let mut added: Vec<(&str, &str)> = Vec::new();
        for (set, value) in values {
            let old = known
                .get(set)
                .and_then(Value::as_array)
                .is_some_and(|vs| vs.iter().any(|v| v.as_str() == Some(value)));
            if old || added.contains(&(set.as_str(), value.as_str())) {
                continue;
            }
            added.push((set, value));
            let mut line = Map::new();
            line.insert("set".to_owned(), Value::from(set.as_str()));
            line.insert("value".to_owned(), Value::from(value.as_str()));
            text.push_str(&Value::Object(line).to_string());
            text.push('\n');
        }
        if text.is_empty() {
            return Ok(());
        }
        let io = |e: std::io::Error| HookError::Memory {
            path: self.file.clone(),
            problem: e.to_string(),
        };
        if let Some(dir) = self.file.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let size = std::fs::metadata(&self.file).map_or(0, |m| m.len());
        if usize::try_from(size)
            .ok()
            .and_then(|s| s.checked_add(text.len()))
            .is_none_or(|total| total > MAX_SESSION_MEMORY_BYTES)
        {
            return Err(self.too_large());
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.file)
            .map_err(io)?;
        // One write of whole lines: hooks of one call run in parallel.
        file.write_all(text.as_bytes()).map_err(io)
    }

    /// The file's text, `None` when there is no file; an error past the
    /// bound or when it does not read.
    fn read_bounded(&self) -> Result<Option<String>, HookError> {
        let io = |e: std::io::Error| HookError::Memory {
            path: self.file.clone(),
            problem: e.to_string(),
        };
        let size = match std::fs::metadata(&self.file) {
            Ok(m) => m.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(e)),
        };
        if usize::try_from(size).map_or(true, |s| s > MAX_SESSION_MEMORY_BYTES) {
            return Err(self.too_large());
        }
        let bytes = std::fs::read(&self.file).map_err(io)?;
        if bytes.len() > MAX_SESSION_MEMORY_BYTES {
            return Err(self.too_large());
        }
        String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| HookError::Memory {
                path: self.file.clone(),
                problem:
                    "it is not UTF-8 text; remove the file to start the session's memory afresh"
                        .to_owned(),
            })
    }

    fn too_large(&self) -> HookError {
        HookError::Memory {
            path: self.file.clone(),
            problem: format!(
                "it holds more than {MAX_SESSION_MEMORY_BYTES} bytes; remove the file to start \
                 the session's memory afresh"
            ),
        }
    }
}

/// The values the `remember` matches of `collected` store. A match's
/// `set` is a non-empty string; its `values` a string, or a list of
/// strings and lists of them (flattened); `null`s and empty strings (a
/// template that filled nothing) are skipped; anything else is an error.
pub fn remembered(collected: &[Match<'_>]) -> Result<Remembered, HookError> {
    let mut out = Vec::new();
    for m in collected.iter().filter(|m| m.action_type() == REMEMBER) {
        let bad = |problem: &str| HookError::Remember {
            hook: m.hook.to_owned(),
            problem: problem.to_owned(),
        };
        let set = match m.action.get("set") {
            Some(Value::String(s)) if !s.is_empty() => s,
            _ => return Err(bad("`set` must be a non-empty string")),
        };
        let mut stack: Vec<&Value> = m.action.get("values").into_iter().collect();
        while let Some(value) = stack.pop() {
            match value {
                Value::Null => {}
                Value::String(s) if s.is_empty() => {}
                Value::String(s) if s.len() > MAX_REMEMBERED_VALUE_BYTES => {
                    return Err(bad(&format!(
                        "a value is longer than {MAX_REMEMBERED_VALUE_BYTES} bytes"
                    )))
                }
                Value::String(s) => out.push((set.clone(), s.clone())),
                // Reversed onto the stack, so values keep their order.
                Value::Array(items) => stack.extend(items.iter().rev()),
                _ => return Err(bad("`values` holds something that is not a string")),
            }
        }
    }
    Ok(out)
}

/// The state folder: `$HOOKC_STATE_DIR`, else `$XDG_STATE_HOME/hookc`,
/// else `$HOME/.local/state/hookc` (empty variables count as unset, as
/// the XDG specification says).
pub(super) fn state_dir(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    set("HOOKC_STATE_DIR")
        .or_else(|| set("XDG_STATE_HOME").map(|d| d.join("hookc")))
        .or_else(|| set("HOME").map(|h| h.join(".local").join("state").join("hookc")))
}

/// The session id as a file name: safe bytes kept, the rest `_`, cut to
/// [`MAX_ID_IN_NAME`], and the FNV-1a hash of the whole id after it.
fn file_id(session_id: &str) -> String {
    let safe: String = session_id
        .bytes()
        .take(MAX_ID_IN_NAME)
        .map(|b| {
            if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' {
                char::from(b)
            } else {
                '_'
            }
        })
        .collect();
    let mut hash = Fnv::default();
    hash.write(session_id.as_bytes());
    format!("{safe}-{:016x}", hash.finish())
}

/// One line's `(set, value)`.
fn parse_line(line: &str) -> Option<(String, String)> {
    let Value::Object(mut line) = serde_json::from_str::<Value>(line).ok()? else {
        return None;
    };
    match (line.remove("set")?, line.remove("value")?) {
        (Value::String(set), Value::String(value)) if !set.is_empty() => Some((set, value)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hookc-memory-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn remember(hook: &'static str, set: &str, values: Value) -> Match<'static> {
        let Value::Object(action) = json!({"type": REMEMBER, "set": set, "values": values}) else {
            unreachable!("a literal object")
        };
        Match { hook, action }
    }

    #[test]
    fn stores_and_loads_distinct_values_in_order() {
        let dir = scratch("order");
        let memory = SessionMemory::under(&dir, "claude-code", "s-1");
        assert!(memory.load().map(|m| m.is_empty()).unwrap_or(false));
        let values = remembered(&[
            remember("a", "written", json!(["/p/b.py", ["/p/a.sh", null, ""]])),
            remember("b", "written", json!("/p/b.py")),
        ])
        .unwrap_or_default();
        assert_eq!(values.len(), 3);
        assert!(memory.store(&Map::new(), &values).is_ok());
        let known = memory.load().unwrap_or_default();
        assert_eq!(known.get("written"), Some(&json!(["/p/b.py", "/p/a.sh"])));
        // Stored again: nothing is appended.
        let before = std::fs::metadata(memory.file()).map(|m| m.len()).ok();
        assert!(memory.store(&known, &values).is_ok());
        assert_eq!(
            std::fs::metadata(memory.file()).map(|m| m.len()).ok(),
            before
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_damaged_or_oversized_file_is_an_error_not_a_gap() {
        let dir = scratch("damaged");
        let memory = SessionMemory::under(&dir, "codex", "s");
        let _ = std::fs::create_dir_all(dir.join("sessions"));
        let _ = std::fs::write(
            memory.file(),
            "{\"set\":\"written\",\"value\":\"a\"}\n{\"set\":",
        );
        let load_error = || {
            memory
                .load()
                .map(|_| ())
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        let err = load_error();
        assert!(err.contains("line 2"), "{err}");
        let big = "x".repeat(MAX_SESSION_MEMORY_BYTES + 1);
        let _ = std::fs::write(memory.file(), big);
        let err = load_error();
        assert!(err.contains("remove the file"), "{err}");
        let values = vec![("written".to_owned(), "x".to_owned())];
        assert!(memory.store(&Map::new(), &values).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_remember_parameters_are_errors() {
        let err = remembered(&[remember("h", "s", json!([1]))])
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(
            err,
            "hookc: hook `h`: `remember`: `values` holds something that is not a string"
        );
        assert!(remembered(&[remember("h", "", json!("x"))]).is_err());
        assert!(remembered(&[remember("h", "s", json!([1]))]).is_err());
        let long = "x".repeat(MAX_REMEMBERED_VALUE_BYTES + 1);
        assert!(remembered(&[remember("h", "s", json!(long))]).is_err());
    }

    #[test]
    fn sessions_spelt_alike_get_their_own_files() {
        let dir = Path::new("/state");
        let a = SessionMemory::under(dir, "cursor", "a/b");
        let b = SessionMemory::under(dir, "cursor", "a_b");
        assert_ne!(a, b);
        let name = a.file().file_name().and_then(|n| n.to_str()).unwrap_or("");
        assert!(name.starts_with("cursor-a_b-"), "{name}");
        let long = SessionMemory::under(dir, "codex", &"x".repeat(500));
        let name = long
            .file()
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("");
        assert!(name.len() < 100, "{name}");
    }

    #[test]
    fn the_state_folder_follows_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        assert_eq!(
            state_dir(env(&[("HOOKC_STATE_DIR", "/s"), ("HOME", "/h")])),
            Some(PathBuf::from("/s"))
        );
        assert_eq!(
            state_dir(env(&[("XDG_STATE_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/hookc"))
        );
        assert_eq!(
            state_dir(env(&[("XDG_STATE_HOME", ""), ("HOME", "/h")])),
            Some(PathBuf::from("/h/.local/state/hookc"))
        );
        assert_eq!(state_dir(env(&[])), None);
    }
}
